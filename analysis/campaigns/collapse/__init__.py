"""The ``collapse`` campaign (results/INDEX.toml); README.md in this folder says what is here."""
