"""The reports a CI reads besides the ledger: ``--verdicts`` (one JSON line per claim, with its
request and labels) and ``--junit`` (one test case per row, a labelled claim as its own case)."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path



def _sorted_json():
    """``json.dumps(x, sort_keys=True)``, the same text, faster: ``JSONEncoder.encode`` builds
    the C encoder afresh on every call (a third of its cost on a verdict line), so build it once
    (``json.encoder.c_make_encoder``, what ``encode`` itself calls) where the interpreter has it.
    Without the circularity check: what it encodes came from JSON or from a verdict, never a cycle."""
    from json.encoder import c_make_encoder, encode_basestring_ascii

    plain = json.JSONEncoder(sort_keys=True, check_circular=False)
    if c_make_encoder is None:
        return plain.encode
    make = c_make_encoder(None, plain.default, encode_basestring_ascii, None, plain.key_separator,
                          plain.item_separator, True, False, True)

    def encode(x) -> str:
        if isinstance(x, str):  # as encode() does: a bare string is not an iterable of parts
            return encode_basestring_ascii(x)
        return "".join(make(x, 0))

    return encode


SORTED_JSON = _sorted_json()

__all__ = ["SORTED_JSON", "Labels", "VerdictLines", "output_file", "write_junit"]


def output_file(path) -> Path:
    """``path`` as a Path, its directory made (with its parents) as ``--out``'s is: every file
    the command line writes goes through here (docs/decisions.md "Output paths checked first")."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


class VerdictLines:
    """``--verdicts FILE``: one JSON object per claim (and per malformed claim)."""

    def __init__(self, path):
        self.f = open(output_file(path), "w") if path else None

    def verdict(self, index, v, request=None, label=None) -> None:
        if self.f is None:
            return
        rec = {"claim": index, "row": v.claim.row, "verdict": v.kind.value, "measure": v.measure,
               "measured": v.measured, "note": v.note}
        if v.claim.id is not None:
            rec["id"] = v.claim.id  # the claim's own label (claims/1 "id")
        if request is not None:
            rec["request"] = request
        if label is not None:
            rec["answer_id"] = label
        if v.witness is not None:
            rec["witness"] = v.witness
        if v.enclosure is not None:
            rec["enclosure"] = v.enclosure
        if "declared_model" in v.extra:
            rec["declared_model"] = v.extra["declared_model"]
        if v.claim.decisions:
            rec["decisions"] = True  # the claim opted in to the project's decisions (oracles.rules)
        if v.rule is not None:
            rec["rule"] = v.rule  # the rule that refuted it
        if v.unmet:
            rec["unmet"] = list(v.unmet)  # decisions of ours it does not meet (not binding it)
        self.f.write(SORTED_JSON(rec) + "\n")

    def malformed(self, err) -> None:
        if self.f is not None:
            rec = {"claim": err.claim, "verdict": "Malformed", "path": err.path, "message": err.message}
            if getattr(err, "id", None) is not None:
                rec["id"] = err.id
            self.f.write(SORTED_JSON(rec) + "\n")

    def close(self) -> None:
        if self.f is not None:
            self.f.close()


class Labels:
    """The verdicts of labeled claims (a claim's ``id``), kept per claim for the JUnit report,
    where each labeled claim is its own test case named by its label. ``label`` names an
    answer's label where the claim itself has none."""

    _FAULTS = ("Violated", "CheckerError", "OracleFault")

    def __init__(self):
        self.verdicts: dict = {}  # claim index -> record

    def verdict(self, index, v, label=None) -> None:
        label = v.claim.id if label is None else label
        if label is None:
            return
        rec = {"id": label, "row": v.claim.row, "kind": v.kind.value, "note": v.note}
        if v.kind.value in self._FAULTS:
            rec.update(witness=v.witness, case=v.claim.inputs, claimed=v.claim.value)
        self.verdicts[index] = rec

    def label_of(self, index):
        rec = self.verdicts.get(index)
        return None if rec is None else rec["id"]


# Characters XML 1.0 does not allow (its Char production): control characters but tab, newline
# and carriage return, lone surrogates, U+FFFE and U+FFFF. An id or a message may hold any JSON
# string; one of these in it would make the whole JUnit file unreadable.
# Compiled on first use: only a JUnit file needs it, and compiling its character class costs
# about 5 ms of every command's start.
@cache
def _not_xml() -> re.Pattern:
    return re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_safe(text):
    """``text`` with every character XML 1.0 does not allow written as a visible escape
    (``\\u0001``); anything else (None) unchanged."""
    if not isinstance(text, str):
        return text
    return _not_xml().sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def write_junit(path, ledger, labels=None) -> None:
    """One test case per row with claims; one ``<failure>`` per Violated claim (the first
    witnesses in the messages); malformed claims as ``<error>`` of a ``case-file`` test case.
    A labeled claim (``id``) is a test case of its own, named by its label (class: its row),
    and is left out of its row's test case; so is a labeled malformed claim (class ``casefile``)."""
    import xml.etree.ElementTree as ET
    from collections import Counter

    from .ledger import decimal_view
    from .rows import ROWS

    labels = labels or Labels()
    by_row: dict = {}
    for idx, rec in labels.verdicts.items():
        by_row.setdefault(rec["row"], []).append((idx, rec))
    suite = ET.Element("testsuite", name="evidence-ledger")
    tests = failures = errors = skipped = 0
    for r in ROWS:
        t = ledger.tallies[r.id]
        mine = by_row.get(r.id, [])
        kinds = Counter(rec["kind"] for _, rec in mine)
        own = {"claims": t.claims - len(mine), "verified": t.verified - kinds["Verified"],
               "violated": t.violated - kinds["Violated"], "undecided": t.undecided - kinds["Undecided"],
               "faults": t.faults - kinds["CheckerError"] - kinds["OracleFault"]}
        if own["claims"] > 0:
            tests += 1
            tc = ET.SubElement(suite, "testcase", classname=r.id.split(".")[0], name=r.id)
            records = {rec["claim"]: rec for rec in t.violations}
            for idx in t.violated_claims:
                if idx in labels.verdicts:
                    continue
                failures += 1
                rec = records.get(idx)
                msg = f"claim {idx} Violated" + (f": {rec['note']}" if rec and rec.get("note") else "")
                fe = ET.SubElement(tc, "failure", message=msg, type="Violated")
                if rec is not None:
                    fe.text = json.dumps(decimal_view({"witness": rec.get("witness"), "case": rec.get("case"),
                                                       "claimed": rec.get("claimed")}), sort_keys=True)
            frecs = {rec["claim"]: rec for rec in t.fault_records}
            for idx in t.fault_claims:
                if idx in labels.verdicts:
                    continue
                errors += 1
                rec = frecs.get(idx)
                kind = rec["kind"] if rec else "CheckerError"
                msg = f"claim {idx} {kind}" + (f": {rec['note']}" if rec and rec.get("note") else "")
                ee = ET.SubElement(tc, "error", message=msg, type=kind)
                if rec is not None:
                    ee.text = json.dumps(decimal_view({"witness": rec.get("witness"), "case": rec.get("case")}),
                                         sort_keys=True)
            if not own["violated"] and not own["faults"] and own["undecided"]:
                skipped += 1
                ET.SubElement(tc, "skipped", message=f"{own['undecided']} of {own['claims']} claims Undecided")
            ET.SubElement(tc, "system-out").text = (f"{own['claims']} claims: {own['verified']} verified, "
                                                    f"{own['violated']} violated, {own['undecided']} undecided, "
                                                    f"{own['faults']} faults")
        for idx, rec in mine:
            tests += 1
            tc = ET.SubElement(suite, "testcase", classname=r.id, name=rec["id"])
            kind, note = rec["kind"], rec.get("note") or ""
            msg = f"claim {idx} {kind}" + (f": {note}" if note else "")
            if kind == "Violated":
                failures += 1
                ET.SubElement(tc, "failure", message=msg, type=kind).text = json.dumps(decimal_view(
                    {"witness": rec.get("witness"), "case": rec.get("case"), "claimed": rec.get("claimed")}),
                    sort_keys=True)
            elif kind in ("CheckerError", "OracleFault"):
                errors += 1
                ET.SubElement(tc, "error", message=msg, type=kind).text = json.dumps(decimal_view(
                    {"witness": rec.get("witness"), "case": rec.get("case")}), sort_keys=True)
            elif kind == "Undecided":
                skipped += 1
                ET.SubElement(tc, "skipped", message=msg)
            ET.SubElement(tc, "system-out").text = msg
    if ledger.producer_errors:
        tests += 1
        tc = ET.SubElement(suite, "testcase", classname="producer", name="fast-path")
        for e in ledger.producer_errors:
            errors += 1
            ET.SubElement(tc, "error", message=str(e)[:500], type="ProducerError").text = \
                json.dumps(e.to_json(), sort_keys=True)
    unlabeled = [m for m in ledger.malformed if getattr(m, "id", None) is None]
    if unlabeled:
        tests += 1
        tc = ET.SubElement(suite, "testcase", classname="casefile", name="case-file")
        for m in unlabeled:
            errors += 1
            ET.SubElement(tc, "error", message=str(m)[:500], type="Malformed")
    for m in ledger.malformed:
        if getattr(m, "id", None) is not None:
            tests += 1
            errors += 1
            tc = ET.SubElement(suite, "testcase", classname="casefile", name=m.id)
            ET.SubElement(tc, "error", message=str(m)[:500], type="Malformed")
    suite.set("tests", str(tests))
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    suite.set("skipped", str(skipped))
    for el in suite.iter():  # labels, notes and messages are the producer's text
        el.text, el.tail = _xml_safe(el.text), _xml_safe(el.tail)
        for k, v in el.attrib.items():
            el.set(k, _xml_safe(v))
    ET.ElementTree(suite).write(output_file(path), encoding="utf-8", xml_declaration=True)
