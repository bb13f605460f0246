import Lean

/-!
# A same-file axiom audit for a checker that sees only public imports

The WebAssembly Lean checker (`/work/shared/tools/lean-wasm/lean`) imports `Init`, `Std` and
`Lean` at their exported level and treats the checked file as a `module`. There `#print axioms`
refuses to run, and an imported theorem carries no proof. `audit.py --mode same-file` therefore
writes one file: this fragment's `import` line, `FacetSelection.lean`, this fragment, one
`noncomputable def` referencing each audited name, and each `#print axioms X` line of
`AxiomAudit.lean` turned into `#audit_axioms X`. The audited declarations are then in the same
file as the command that inspects them.

## Main definitions

* `auditWalk`: the constants reachable from a declaration, split into axioms and constants the
  environment does not contain.
* `#audit_axioms X`: prints `'X' depends on axioms or opaque imports: [...]` (or
  `'X' does not depend on any axioms or opaque imports`), preceded by
  `audit: 'X' reaches constants the checker cannot find: [...]` when the walk meets a name it
  cannot resolve, or prints `audit: unknown constant 'X'`.

## Implementation notes

The walk sees through every declaration of the checked file. It stops at imported constants
whose bodies the exported import level hides: imported theorems appear as opaque constants, so
the printed list mixes real kernel axioms with such opaque imports. `audit.py` sorts them: the
three standard axioms pass, known non-standard core axioms (`sorryAx`, `Lean.ofReduceBool`, …)
and anything declared in the checked file fail, and the remaining opaque imports from core are
reported. Declarations of a file checked as a `module` are private, so names are looked up both
as given and under the file's private prefix. A generated equation lemma (`f.eq_def`,
`f.eq_unfold`) realized at command level, e.g. by `#check`, is not visible to a lookup from a
later command; one referenced from a named declaration is, hence the references `audit.py`
adds. The helpers are written without library
functions whose compiled code the exported import level omits (`Name.toString`, folds), which
the interpreter would otherwise fail to find.
-/

open Lean Elab Command

/-- Renders a name with `.` separators, without `Name.toString` (see the module notes). -/
meta def auditNameStr : Name → String
  | .anonymous => ""
  | .str .anonymous s => s
  | .str p s => auditNameStr p ++ "." ++ s
  | .num .anonymous k => toString k
  | .num p k => auditNameStr p ++ "." ++ toString k

/-- Joins the names `a[a.size - k], …, a[a.size - 1]` onto `acc` with `", "`. -/
meta def auditJoin (a : Array Name) : Nat → String → String
  | 0, acc => acc
  | k + 1, acc =>
    let i := a.size - (k + 1)
    let s := auditNameStr a[i]!
    auditJoin a k (if i == 0 then s else acc ++ ", " ++ s)

/-- Pushes the names of `cs` not yet in `seen` onto the work list `todo`. -/
meta def auditPush (seen : NameSet) (todo : List Name) : List Name → List Name
  | [] => todo
  | c :: cs => if seen.contains c then auditPush seen todo cs else auditPush seen (c :: todo) cs

/-- Walks the constants reachable from the work list through types, values and constructors,
returning the axioms reached (which include imported constants whose bodies are hidden) and the
constants that the environment does not contain. Unlike core's `collectAxioms`, which skips a
constant it cannot find, the walk reports it, so an unresolved reference fails the audit. -/
meta partial def auditWalk (env : Environment) :
    List Name → NameSet → Array Name → Array Name → Array Name × Array Name
  | [], _, axs, miss => (axs, miss)
  | c :: todo, seen, axs, miss =>
    if seen.contains c then auditWalk env todo seen axs miss else
    let seen := seen.insert c
    let next (ts : List Name) := auditWalk env (auditPush seen todo ts) seen axs miss
    let next2 (ts us : List Name) := auditWalk env (auditPush seen (auditPush seen todo ts) us) seen axs miss
    match env.find? c with
    | none => auditWalk env todo seen axs (miss.push c)
    | some (.axiomInfo _) => auditWalk env todo seen (axs.push c) miss
    | some (.defnInfo v) => next2 v.type.getUsedConstants.toList v.value.getUsedConstants.toList
    | some (.thmInfo v) => next2 v.type.getUsedConstants.toList v.value.getUsedConstants.toList
    | some (.opaqueInfo v) => next2 v.type.getUsedConstants.toList v.value.getUsedConstants.toList
    | some (.quotInfo v) => next v.type.getUsedConstants.toList
    | some (.ctorInfo v) => next v.type.getUsedConstants.toList
    | some (.recInfo v) => next v.type.getUsedConstants.toList
    | some (.inductInfo v) => next2 v.type.getUsedConstants.toList v.ctors

/-- `#audit_axioms X` prints the axioms and opaque imported constants that `X` reaches, and
any reachable constant the environment does not contain. A generated equation lemma is found
only once a named declaration of the file has referenced it; `audit.py` adds such references. -/
elab "#audit_axioms " id:ident : command => do
  let env ← getEnv
  let n := id.getId
  let p := Name.num (Name.str .anonymous "_private" ++ env.mainModule) 0 ++ n
  let target? := if (env.find? n).isSome then some n
    else if (env.find? p).isSome then some p else none
  match target? with
  | none => IO.println ("audit: unknown constant '" ++ auditNameStr n ++ "'")
  | some t =>
    let (deps, miss) := auditWalk env [t] {} #[] #[]
    if miss.size != 0 then
      IO.println ("audit: '" ++ auditNameStr n ++ "' reaches constants the checker cannot find: ["
        ++ auditJoin miss miss.size "" ++ "]")
    if deps.size == 0 then
      IO.println ("'" ++ auditNameStr n ++ "' does not depend on any axioms or opaque imports")
    else
      IO.println ("'" ++ auditNameStr n ++ "' depends on axioms or opaque imports: ["
        ++ auditJoin deps deps.size "" ++ "]")
