"""Figure modules: one module per figure, discovered by ``python -m analysis.figures build``.

Contract of a figure module ``analysis/figures/fig_<name>.py`` (or ``fig_<name>.py`` of a campaign
folder, :func:`analysis.campaign.registry.figure_modules`):

- ``REQUIRES: tuple[str, ...]`` — names of experiments of the campaign that trains its folder's
  runs (:func:`analysis.campaign.registry.trainer`) whose run folders the figure reads (empty
  for theory figures, which compute their data).
- ``make_figure(runs: dict[str, list[Path]]) -> matplotlib.figure.Figure`` — build the
  figure; ``runs`` maps each required experiment to its run folders (read them only through
  :mod:`analysis.runs`). Theory figures ignore ``runs``.
- ``INPUTS: tuple[str, ...]`` (optional) — glob patterns, relative to the repository, of
  every other file the figure reads (e.g. ``results/diagnostics/grad_noise-*.json``); the
  build fails when one matches nothing.
- optional ``CAPTION: str`` — one sentence, copied into the sidecar JSON.

The builder writes ``figures/<name>.png`` and ``.pdf`` plus ``figures/<name>.json``, a
sidecar naming every input (module, caption, experiments, each run by its campaign name with
the hashes of the files a figure can read, each ``INPUTS`` file with its hash). Rebuilding from
unchanged inputs gives byte-identical files (:mod:`analysis.figures.save`).
"""
