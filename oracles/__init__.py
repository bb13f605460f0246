"""The checker side: claims, verdicts, one checker per guarantee row, the evidence ledger, case
files and the command line (``python -m oracles``)."""

__version__ = "0.1.0"
