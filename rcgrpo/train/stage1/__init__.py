"""Stage 1 (SFT / RCTP-FT): the modules only the Stage-1 trainer reads.

=========================================  ================================================
module                                     concern
=========================================  ================================================
:mod:`~rcgrpo.train.stage1.sft`            ``python -m rcgrpo sft``: one step, the loop
                                           (``train``, also run by ``rctp``)
:mod:`~rcgrpo.train.stage1.rctp`           ``python -m rcgrpo rctp``: the failure mix, then
                                           the SFT loop under both reward goals
:mod:`~rcgrpo.train.stage1.config`         :class:`~.config.SFTConfig`,
                                           :class:`~.config.RCTPConfig` and the Stage-1
                                           presets
:mod:`~rcgrpo.train.stage1.setup`          open a run (validate, precision, folder, tasks,
                                           policy, resume) and write its summary
:mod:`~rcgrpo.train.stage1.data`           the starting policy, tokenized examples,
                                           length-bucketed batches
:mod:`~rcgrpo.train.stage1.trajectories`   expert / demonstrator / rollout trajectories,
                                           their reward labels, the RCTP-FT 1:1 mix
=========================================  ================================================

Shared with Stage 2, in :mod:`rcgrpo.train`: the config sections, the CLI, validation,
checkpoints, run folders, the run log, resources and failure modes; task splits come from
:func:`rcgrpo.policy.task_sources.load_task_splits`.
"""
