"""A small reader of Lean 4 source text for the source tests: comments and strings removed,
declarations split out, statements normalized. Pure Python, no Lean needed."""

from __future__ import annotations

import re

#: Tokens that must not occur in code: unfinished proofs, unchecked evaluation, new axioms and
#: code the kernel does not check.
FORBIDDEN_TOKENS = ("sorry", "admit", "native_decide", "axiom", "unsafe")

_DECL_RE = re.compile(r"^(theorem|def|structure|inductive|end|namespace|noncomputable|abbrev|instance|lemma|example"
                      r"|elab|meta|open)\b", re.MULTILINE)


def strip_comments_and_strings(source: str) -> str:
    """Replaces comments (``--`` lines, nested ``/- -/`` blocks and docstrings) and string
    literals by spaces, keeping newlines so that line structure survives."""
    out: list[str] = []
    i, n, depth = 0, len(source), 0
    while i < n:
        two = source[i:i + 2]
        if depth:
            if two == "/-":
                depth, i = depth + 1, i + 2
                out.append("  ")
            elif two == "-/":
                depth, i = depth - 1, i + 2
                out.append("  ")
            else:
                out.append("\n" if source[i] == "\n" else " ")
                i += 1
        elif two == "/-":
            depth, i = 1, i + 2
            out.append("  ")
        elif two == "--":
            j = source.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif source[i] == '"':
            j = i + 1
            while j < n and source[j] != '"':
                j += 2 if source[j] == "\\" else 1
            out.append(" " * (min(j + 1, n) - i))
            i = j + 1
        else:
            out.append(source[i])
            i += 1
    return "".join(out)


def forbidden_tokens(source: str) -> list[tuple[int, str]]:
    """(line number, token) for every forbidden token in the code of ``source``."""
    code = strip_comments_and_strings(source)
    pattern = re.compile(r"(?<![\w.'!?])(" + "|".join(FORBIDDEN_TOKENS) + r")(?![\w'!?])")
    return [(code.count("\n", 0, m.start()) + 1, m.group(1)) for m in pattern.finditer(code)]


def normalize(text: str) -> str:
    """Collapses every run of whitespace to one space."""
    return " ".join(text.split())


def declarations(source: str) -> dict[str, tuple[str, str]]:
    """name -> (keyword, full normalized text) for each top-level ``theorem``, ``def``,
    ``structure`` and ``inductive`` (namespace prefix not included)."""
    code = strip_comments_and_strings(source)
    starts = [m for m in _DECL_RE.finditer(code)]
    decls: dict[str, tuple[str, str]] = {}
    for k, m in enumerate(starts):
        if m.group(1) not in ("theorem", "def", "structure", "inductive"):
            continue
        end = starts[k + 1].start() if k + 1 < len(starts) else len(code)
        text = normalize(code[m.start():end])
        name = text.split()[1]
        decls[name] = (m.group(1), text)
    return decls


def theorem_statement(text: str) -> str:
    """The statement of a theorem: its text up to the first ``:=``."""
    return text.split(":=", 1)[0].strip()


def docstring_precedes(source: str, keyword: str, name: str) -> bool:
    """True when the declaration ``keyword name`` is immediately preceded by a ``/-- -/``."""
    m = re.search(r"/--(?:(?!-/).)*-/\s*" + re.escape(keyword) + r"\s+" + re.escape(name) + r"\b", source, re.S)
    return m is not None
