"""The ``regime-d10-itt`` campaign (results/INDEX.toml); README.md in this folder says what is here."""
