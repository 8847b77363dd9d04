"""SmolLM2-135M-Instruct zero-shot: the committed evaluations of the real model before any
training (README.md of this folder)."""
