"""The collapse-pairs-map campaign (``docs/protocols/collapse-pairs-map.md``, part 1): the narrow
region of minimal pairs on ``collapse1-d10`` mapped cell by cell; see this folder's ``README.md``."""
