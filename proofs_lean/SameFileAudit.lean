module

public meta import Lean.Elab.Command

/-!
# A same-file axiom audit for a checker that sees only public imports

The WebAssembly Lean checker (`../shared/tools/lean-wasm/lean`) imports `Init`, `Std` and
`Lean` at their exported level and treats the checked file as a `module`. There `#print axioms`
refuses to run, and an imported theorem carries no proof. `audit.py --mode same-file` therefore
writes one file: this fragment's header (`module`, then the one import, which a module may use
at compile time only as a `meta import`), `set_option Elab.async false`,
`FacetSelection.lean`, `FirstHit.lean`, `Culling.lean` (their project imports dropped), this
fragment, one `noncomputable def` referencing each audited name, and one `#audit_axioms_all`
command naming every declaration of the `#print axioms` lines of `AxiomAudit.lean`. The audited declarations
are then in the same file as the command that inspects them.

## Main definitions

* `auditWalk`: the constants reachable from a declaration, split into axioms and constants the
  environment does not contain.
* `#audit_axioms X`: prints `'X' depends on axioms or opaque imports: [...]` (or
  `'X' does not depend on any axioms or opaque imports`), preceded by
  `audit: 'X' reaches constants the checker cannot find: [...]` when the walk meets a name it
  cannot resolve, or prints `audit: unknown constant 'X'`.
* `#audit_axioms_all X₁ … Xₙ watching W₁ … Wₘ`: a compact report for each `Xᵢ`, where the walk
  from `Xᵢ` does not enter the other listed names (each has its own report; when all are clean,
  all are clean transitively). Only the reached constants declared in the checked file or named
  among the `Wⱼ` (the kernel axioms `audit.py` judges) are listed, then the number of the other
  opaque core imports: the whole output stays far below the 64 KiB that the checker's output
  pipe holds (a full pipe aborts the checker, see `audit.py`). Walking every proof once instead
  of once per name that reaches it keeps the audit near the cost of elaborating the file.

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
functions whose compiled code the exported import level omits (`Name.toString`, folds, list
append), which the interpreter would otherwise fail to find. `Elab.async false` matters for
memory, not correctness: with `import Lean`, elaborating the theorems as concurrent tasks took
13 GB in the WebAssembly checker, one after another 3.4 GB, at the same CPU time. The import is
`Lean.Elab.Command` (what `elab` and the command monad need), not all of `Lean`, also for
memory: the checker holds every imported module in its memory (see `docs/decisions.md`, "Lean:
the audit imports Lean.Elab.Command, not Lean").
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
meta partial def auditWalk (env : Environment) (stop : NameSet) :
    List Name → NameSet → Array Name → Array Name → Array Name × Array Name
  | [], _, axs, miss => (axs, miss)
  | c :: todo, seen, axs, miss =>
    if seen.contains c || stop.contains c then auditWalk env stop todo seen axs miss else
    let seen := seen.insert c
    let next (ts : List Name) := auditWalk env stop (auditPush seen todo ts) seen axs miss
    let next2 (ts us : List Name) :=
      auditWalk env stop (auditPush seen (auditPush seen todo ts) us) seen axs miss
    match env.find? c with
    | none => auditWalk env stop todo seen axs (miss.push c)
    | some (.axiomInfo _) => auditWalk env stop todo seen (axs.push c) miss
    | some (.defnInfo v) => next2 v.type.getUsedConstants.toList v.value.getUsedConstants.toList
    | some (.thmInfo v) => next2 v.type.getUsedConstants.toList v.value.getUsedConstants.toList
    | some (.opaqueInfo v) => next2 v.type.getUsedConstants.toList v.value.getUsedConstants.toList
    | some (.quotInfo v) => next v.type.getUsedConstants.toList
    | some (.ctorInfo v) => next v.type.getUsedConstants.toList
    | some (.recInfo v) => next v.type.getUsedConstants.toList
    | some (.inductInfo v) => next2 v.type.getUsedConstants.toList v.ctors

/-- The declaration `n` names, as given or under the checked file's private prefix. -/
meta def auditResolve (env : Environment) (n : Name) : Option Name :=
  let p := Name.num (Name.str .anonymous "_private" ++ env.mainModule) 0 ++ n
  if (env.find? n).isSome then some n else if (env.find? p).isSome then some p else none

/-- The report of one audited name `n`, one line or two (no trailing newline); the walk does
not enter the names of `stop`. Strings, not lists: the interpreter lacks compiled list append. -/
meta def auditLines (env : Environment) (stop : NameSet) (n : Name) : String :=
  match auditResolve env n with
  | none => "audit: unknown constant '" ++ auditNameStr n ++ "'"
  | some t =>
    let (deps, miss) := auditWalk env stop [t] {} #[] #[]
    let head := if miss.size != 0 then
      "audit: '" ++ auditNameStr n ++ "' reaches constants the checker cannot find: ["
        ++ auditJoin miss miss.size "" ++ "]\n" else ""
    head ++ (if deps.size == 0 then
        "'" ++ auditNameStr n ++ "' does not depend on any axioms or opaque imports"
      else
        "'" ++ auditNameStr n ++ "' depends on axioms or opaque imports: ["
          ++ auditJoin deps deps.size "" ++ "]")

/-- The resolved names of `a[0], …, a[k - 1]` other than `a[skip]`, inserted into `s`. -/
meta def auditStopSet (env : Environment) (a : Array Name) (skip : Nat) : Nat → NameSet → NameSet
  | 0, s => s
  | k + 1, s =>
    let s := if k == skip then s else
      match auditResolve env a[k]! with
      | some t => s.insert t
      | none => s
    auditStopSet env a skip k s

/-- Splits the reached constants `a[a.size - k], …` into those printed (declared in the checked
file, or named in `watch`) and the number of the others, the opaque core imports. -/
meta def auditSplit (env : Environment) (watch : NameSet) (a : Array Name) :
    Nat → Array Name → Nat → Array Name × Nat
  | 0, shown, hidden => (shown, hidden)
  | k + 1, shown, hidden =>
    let c := a[a.size - (k + 1)]!
    if watch.contains c || (env.getModuleIdxFor? c).isNone then auditSplit env watch a k (shown.push c) hidden
    else auditSplit env watch a k shown (hidden + 1)

/-- The compact report of one audited name: like `auditLines`, but only the reached constants
declared in the checked file or named in `watch` are listed, followed by the number of the
other (opaque core) imports: `'X' depends on axioms or opaque imports: [...] +N opaque`. -/
meta def auditLinesCompact (env : Environment) (watch stop : NameSet) (n : Name) : String :=
  match auditResolve env n with
  | none => "audit: unknown constant '" ++ auditNameStr n ++ "'"
  | some t =>
    let (deps, miss) := auditWalk env stop [t] {} #[] #[]
    let head := if miss.size != 0 then
      "audit: '" ++ auditNameStr n ++ "' reaches constants the checker cannot find: ["
        ++ auditJoin miss miss.size "" ++ "]\n" else ""
    let (shown, hidden) := auditSplit env watch deps deps.size #[] 0
    head ++ "'" ++ auditNameStr n ++ "' depends on axioms or opaque imports: ["
      ++ auditJoin shown shown.size "" ++ "] +" ++ toString hidden ++ " opaque"

/-- The compact report of `a[a.size - k], …, a[a.size - 1]`, each walked with the others as
stops. -/
meta def auditAll (env : Environment) (watch : NameSet) (a : Array Name) : Nat → String
  | 0 => ""
  | k + 1 =>
    let i := a.size - (k + 1)
    auditLinesCompact env watch (auditStopSet env a i a.size {}) a[i]! ++ "\n" ++ auditAll env watch a k

/-- The names of `ids[ids.size - k], …, ids[ids.size - 1]` pushed onto `acc`. -/
meta def auditIdNames (ids : Array Ident) : Nat → Array Name → Array Name
  | 0, acc => acc
  | k + 1, acc => auditIdNames ids k (acc.push ids[ids.size - (k + 1)]!.getId)

/-- The names of `ids[ids.size - k], …` inserted into `s`. -/
meta def auditIdSet (ids : Array Ident) : Nat → NameSet → NameSet
  | 0, s => s
  | k + 1, s => auditIdSet ids k (s.insert ids[ids.size - (k + 1)]!.getId)

/-- `#audit_axioms X` prints the axioms and opaque imported constants that `X` reaches, and
any reachable constant the environment does not contain. A generated equation lemma is found
only once a named declaration of the file has referenced it; `audit.py` adds such references. -/
elab "#audit_axioms " id:ident : command => do
  IO.println (auditLines (← getEnv) {} id.getId)

/-- `#audit_axioms_all X₁ … Xₙ watching W₁ … Wₘ` prints a compact report for each `Xᵢ`: the
reached constants declared in this file or among the `Wⱼ` (the kernel axioms `audit.py` judges
by name), and the number of the other opaque core imports. The walk from `Xᵢ` does not enter
the other listed declarations: each of them has its own report. If every report is clean,
every listed declaration is clean transitively (by induction along the dependency order), and
each proof term is walked about once instead of once per listed declaration that reaches it.
The output stays small (a few dozen bytes a name): the WebAssembly checker aborts with
`hardware fault (error code: 29)` when its output pipe is full (see `audit.py`). -/
elab "#audit_axioms_all" ids:(ppSpace ident)+ " watching" ws:(ppSpace ident)+ : command => do
  let names := auditIdNames ids ids.size #[]
  IO.print (auditAll (← getEnv) (auditIdSet ws ws.size {}) names names.size)
