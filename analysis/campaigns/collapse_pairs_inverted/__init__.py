"""The collapse-pairs-inverted campaign (``docs/protocols/collapse-pairs-map.md``, part 2): the
positive control, minimal pairs with their labels inverted on ``collapse1-d10``; see this
folder's ``README.md``."""
