"""The real-model study ``smollm2-collapse`` (``docs/protocols/smollm2-collapse.md``): do the tiny
model's collapse findings hold on SmolLM2-135M-Instruct? See this folder's ``README.md``."""
