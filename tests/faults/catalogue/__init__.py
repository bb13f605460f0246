"""Fault catalogues, one module per area, each exposing ``FAULTS`` (a list of
``tests.faults.harness.Fault``). The harness discovers every module here."""
