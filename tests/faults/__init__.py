"""The planted-fault suite: realistic implementation mistakes, each planted alone in a copy of
the project, judged by the ledger alone (and then by the tests). See ``harness.py``."""
