"""The ``regime-wide1`` campaign (results/INDEX.toml); README.md in this folder says what is here."""
