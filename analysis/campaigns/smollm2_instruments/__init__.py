"""The instrument-only study ``smollm2-instruments`` (``docs/protocols/smollm2-instruments.md``):
the goal effect, the transfer probe and the start's collapse on a real-model RCTP-FT, trained
with ``smollm2-collapse``'s Stage-1 recipe from its gate-B retry base."""
