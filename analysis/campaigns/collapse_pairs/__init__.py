"""The collapse-pairs campaign (``docs/protocols/collapse-pairs.md``): matched Stage 1 and a
minimal-pair RCTP-FT mix on ``collapse1-d10``; see this folder's ``README.md``."""
