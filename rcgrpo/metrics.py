"""The metric registry: every logged name -> one-line meaning + formula, under a namespace.

The table of ``docs/metrics.md`` is generated from :data:`METRICS` (``python -m rcgrpo
docs``; :mod:`rcgrpo.metrics_cli` renders it) and a test fails if the two drift. Trainers
call :func:`validate_metric_names` on every metrics dict, so a misspelt name fails the run at
its first log step instead of creating a silent new column.

Symbols: P prompts, G group size, B = P·G rollouts, R_j a rollout's reward, A_j its
advantage, μ_g / σ_g² a group's reward mean / population variance, h = the rollout was
conditioned on ``<|high_reward|>``, ρ the importance ratio, m the loss mask. "mean_g" is a
mean over groups, "mean_j" over rollouts, "mean_t" over loss-mask tokens.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass

NAMESPACES = (
    "reward",
    "adv",
    "group",
    "policy",
    "loss",
    "rollout",
    "tools",
    "perf",
    "theory",
    "sft",
)


@dataclass(frozen=True)
class Metric:
    """One registry entry."""

    meaning: str
    """What the number tells a researcher, in one line."""
    formula: str
    """How it is computed (plain-text maths)."""
    namespace: str
    """One of :data:`NAMESPACES`; equals the name's prefix before '/'."""


_ENTRIES: tuple[tuple[str, str, str], ...] = (
    # reward/ — outcome of the rollouts of this step
    ("reward/mean", "mean reward of the step's rollouts", "mean_j R_j"),
    ("reward/success_rate", "fraction of rollouts with full success", "mean_j 1[R_j = 1]"),
    ("reward/state_mean", "mean state-match component R_state", "mean_j R_state,j"),
    ("reward/action_mean", "mean call-match component R_action", "mean_j R_action,j"),
    ("reward/bfcl_valid_frac", "fraction passing the official BFCL checker", "mean_j valid_j"),
    ("reward/high_frac", "fraction of rollouts conditioned on the high token", "mean_j 1[h_j]"),
    ("reward/mean_high", "mean reward under <|high_reward|> (NaN if none)", "mean_{j: h_j} R_j"),
    ("reward/mean_low", "mean reward under <|low_reward|> (NaN if none)", "mean_{j: ¬h_j} R_j"),
    ("reward/success_high", "success rate under <|high_reward|>", "mean_{j: h_j} 1[R_j = 1]"),
    ("reward/success_low", "success rate under <|low_reward|>", "mean_{j: ¬h_j} 1[R_j = 1]"),
    ("reward/eval_mean", "held-out mean reward (RC: conditioned on high)", "mean over eval tasks"),
    ("reward/eval_success", "held-out success rate (RC: conditioned on high)", "mean 1[R = 1]"),
    ("reward/eval_success_low", "held-out success conditioned on low", "mean 1[R = 1] | low"),
    # adv/ — advantages
    ("adv/gap_mean", "mean within-group advantage spread (paper Fig. 2)", "mean_g (max A - min A)"),
    ("adv/gap_min", "smallest within-group advantage spread", "min_g (max A - min A)"),
    ("adv/gap_max", "largest within-group advantage spread", "max_g (max A - min A)"),
    ("adv/abs_mean", "mean advantage magnitude", "mean_j |A_j|"),
    ("adv/nonzero_frac", "fraction of rollouts with a non-zero advantage", "mean_j 1[A_j ≠ 0]"),
    # adv/ between/within-goal split of the trained groups' advantages (rcgrpo.advantage_split):
    # A_j = b_j + w_j, b_j = (μ_{r_j} - μ_g)/(σ_g+ε), w_j = (R_j - μ_{r_j})/(σ_g+ε)
    (
        "adv/between_abs_mean",
        "mean size of the between-goal part of the advantage (trained groups)",
        "mean_j |b_j|, b_j = (μ_{r_j} - μ_g)/(σ_g+ε); 0 if one goal only",
    ),
    (
        "adv/within_abs_mean",
        "mean size of the within-goal part of the advantage (trained groups)",
        "mean_j |w_j|, w_j = (R_j - μ_{r_j})/(σ_g+ε) = A_j - b_j",
    ),
    (
        "adv/between_share",
        "share of the advantage weight that rewards the goal drawn",
        "Σ_j |b_j| / (Σ_j |b_j| + Σ_j |w_j|)",
    ),
    (
        "adv/within_share",
        "share of the advantage weight that ranks rollouts of one goal",
        "Σ_j |w_j| / (Σ_j |b_j| + Σ_j |w_j|)",
    ),
    (
        "adv/high_within_share",
        "within-goal share of the high-goal rollouts' advantage weight",
        "Σ_{j: h_j} |w_j| / Σ_{j: h_j} (|b_j| + |w_j|)",
    ),
    # group/ — per-group reward statistics (independent of advantage scaling)
    ("group/var_mean", "mean group reward variance (ddof 0)", "mean_g σ_g²"),
    ("group/var_p50", "median group reward variance", "quantile_0.5 σ_g²"),
    ("group/var_p90", "90th percentile of group reward variance", "quantile_0.9 σ_g²"),
    ("group/std_mean", "mean group reward std", "mean_g σ_g"),
    ("group/std_p50", "median group reward std", "quantile_0.5 σ_g"),
    ("group/std_p90", "90th percentile of group reward std", "quantile_0.9 σ_g"),
    (
        "group/zero_var_frac",
        "observed collapse: groups with all rewards equal",
        "mean_g 1[σ_g = 0]",
    ),
    ("group/zero_var_success_frac", "collapsed groups that all succeeded", "mean_g 1[all R = 1]"),
    ("group/zero_var_fail_frac", "collapsed groups that all failed", "mean_g 1[all R = 0]"),
    (
        "group/zero_var_other_frac",
        "collapsed groups constant at another value",
        "zero_var - success - fail",
    ),
    (
        "group/zero_var_predicted",
        "predicted collapse from per-prompt success s (Def. 4.1)",
        "mean_g [s^G + (1-s)^G]",
    ),
    (
        "group/zero_var_predicted_pooled",
        "predicted collapse if all prompts had the batch success rate s̄",
        "s̄^G + (1-s̄)^G",
    ),
    (
        "group/mode_sep_mean",
        "mode separation over groups with both tokens",
        "mean_g (μ_h,g - μ_l,g)",
    ),
    (
        "group/mode_sep_pooled",
        "mode separation pooled over the batch",
        "reward/mean_high - reward/mean_low",
    ),
    ("group/var_within_mean", "within-token part of σ_g² (Lemma A.3)", "mean_g Σ_c n_c/G · var_c"),
    (
        "group/var_between_mean",
        "between-token part of σ_g² (Lemma A.3)",
        "mean_g Σ_c n_c/G · (μ_c - μ_g)²",
    ),
    (
        "group/between_frac",
        "share of group variance explained by the token",
        "Σ_g between / Σ_g σ_g²",
    ),
    (
        "group/no_token_diversity_frac",
        "groups whose rollouts all got the same token",
        "mean_g 1[n_h ∈ {0, G}]",
    ),
    (
        "group/kept_frac",
        "groups kept by dynamic sampling / filtering",
        "kept groups / generated groups",
    ),
    # policy/ — the policy and its optimisation
    ("policy/entropy", "mean next-token entropy on loss-mask tokens", "mean_t H(π_θ(·|h_t))"),
    ("policy/entropy_high", "mean token entropy of high-token rollouts", "mean_t H, rows with h"),
    ("policy/entropy_low", "mean token entropy of low-token rollouts", "mean_t H, rows with ¬h"),
    (
        "policy/kl_ref",
        "KL to the reference policy (k3 estimator)",
        "mean_t [e^x - x - 1], x = log π_ref - log π_θ",
    ),
    (
        "policy/approx_kl_old",
        "KL to the behaviour policy (k3), PPO's approx-kl",
        "mean_t k3(log π_θ, log π_old)",
    ),
    ("policy/ratio_mean", "mean importance ratio", "mean_t ρ"),
    ("policy/ratio_max", "largest importance ratio", "max_t ρ"),
    ("policy/ratio_min", "smallest importance ratio", "min_t ρ"),
    (
        "policy/clipfrac",
        "tokens where the clip binds (zero gradient)",
        "clipfrac_low + clipfrac_high",
    ),
    (
        "policy/clipfrac_low",
        "clip binds below: ρ < 1-ε_low and A < 0",
        "mean_t 1[ρ < 1-ε_low, A < 0]",
    ),
    (
        "policy/clipfrac_high",
        "clip binds above: ρ > 1+ε_high and A > 0",
        "mean_t 1[ρ > 1+ε_high, A > 0]",
    ),
    ("policy/grad_norm", "global gradient L2 norm before clipping", "‖∇_θ L‖₂"),
    ("policy/lr", "learning rate used for this update", "scheduler value"),
    # loss/
    ("loss/total", "the optimised loss", "agg(ℓ_clip + β·k - c_H·H)"),
    ("loss/pg", "clipped-surrogate part", "agg(-min(ρA, clip(ρ)A))"),
    ("loss/kl", "KL part (already times β)", "agg(β·k)"),
    ("loss/entropy_bonus", "entropy-bonus part (negative)", "agg(-c_H·H)"),
    ("loss/active_tokens", "loss-mask tokens in the batch", "Σ m"),
    (
        "loss/sft",
        "SFT / RCTP-FT next-token cross-entropy on assistant tokens",
        "-mean_t log π_θ(a_t|h_t)",
    ),
    (
        "loss/nonfinite",
        "1 if this step's loss or gradient was non-finite (update skipped)",
        "1[¬finite]",
    ),
    # rollout/
    (
        "rollout/length_mean",
        "mean total tokens per rollout (prompt + tools + generated)",
        "mean_j T_j",
    ),
    ("rollout/length_max", "longest rollout", "max_j T_j"),
    ("rollout/gen_tokens_mean", "mean model-generated tokens per rollout", "mean_j Σ_t m_j,t"),
    ("rollout/steps_mean", "mean assistant steps (model calls) per episode", "mean_j steps_j"),
    ("rollout/turns_mean", "mean user turns reached per episode", "mean_j turns_j"),
    ("rollout/truncated_frac", "episodes cut by a length or step limit", "mean_j 1[truncated_j]"),
    ("rollout/extra_batches", "extra generation rounds of dynamic sampling", "count"),
    (
        "rollout/capped_frac",
        "episodes with a message cut by the per-message token cap",
        "mean_j 1[capped_j > 0]",
    ),
    # tools/
    ("tools/calls_mean", "mean executed tool calls per episode", "mean_j calls_j"),
    (
        "tools/error_rate",
        "tool observations that are errors (failed calls, rejected replies)",
        "Σ error observations / Σ tool observations",
    ),
    (
        "tools/no_call_frac",
        "episodes without any tool call (policy skipping tools)",
        "mean_j 1[calls_j = 0]",
    ),
    # perf/
    (
        "perf/tokens_per_s",
        "generated tokens per second in the rollout phase",
        "gen tokens / rollout time",
    ),
    (
        "perf/time_rollout_s",
        "wall time of rollout generation, environment steps and reward scoring",
        "seconds",
    ),
    (
        "perf/time_gather_s",
        "wall time of building the per-rollout rows and gathering them across ranks",
        "seconds",
    ),
    ("perf/time_ref_s", "wall time of the reference / old log-prob passes", "seconds"),
    ("perf/time_update_s", "wall time of the optimisation phase", "seconds"),
    ("perf/time_eval_s", "wall time of held-out evaluation", "seconds"),
    ("perf/time_step_s", "wall time of the whole step", "seconds"),
    ("perf/peak_rss_gib", "peak resident memory of the process", "ru_maxrss (KiB) / 2^20"),
    ("perf/cpu_time_s", "CPU time of the process so far (all threads)", "user + system seconds"),
    # theory/ — the paper's predictions next to the measurements
    ("theory/kappa", "Prop. 4.3 constant for i.i.d. tokens", "κ = (G-1)/G · p(1-p)"),
    (
        "theory/var_bound_iid",
        "Prop. 4.3 lower bound on E[σ_g²] (compare group/var_mean)",
        "κ · (group/mode_sep_pooled)²",
    ),
    (
        "theory/no_token_diversity_predicted",
        "P(all G tokens equal) under i.i.d. sampling",
        "p^G + (1-p)^G",
    ),
    # sft/ — Stage 1 (SFT, RCTP-FT); the loss itself is loss/sft
    ("sft/token_acc", "argmax accuracy on assistant tokens", "mean_t 1[argmax π_θ(·|h_t) = a_t]"),
    (
        "sft/prompt_loss",
        "cross-entropy on non-assistant tokens (0 unless sft.prompt_loss_weight > 0)",
        "-mean_t∉m log π_θ(x_t|x_<t)",
    ),
    ("sft/tokens_per_s", "training tokens (padding excluded) per second", "Σ tokens / wall s"),
    ("sft/epoch", "passes over the training examples so far", "step / steps per epoch"),
    (
        "sft/eval_multi_turn",
        "held-out success, multi_turn episodes (SFT: no token; RCTP: high)",
        "mean 1[R = 1]",
    ),
    (
        "sft/eval_combined",
        "held-out success, combined episodes (SFT: no token; RCTP: high)",
        "mean 1[R = 1]",
    ),
    ("sft/eval_multi_turn_low", "held-out success, multi_turn, low token", "mean 1[R = 1] | low"),
    ("sft/eval_combined_low", "held-out success, combined, low token", "mean 1[R = 1] | low"),
)

METRICS: dict[str, Metric] = {
    name: Metric(meaning, formula, name.split("/", 1)[0]) for name, meaning, formula in _ENTRIES
}


def validate_metric_names(metrics: Iterable[str]) -> None:
    """Raise ``ValueError`` naming every key of ``metrics`` that is not in :data:`METRICS`."""
    unknown = sorted(str(name) for name in metrics if name not in METRICS)
    if unknown:
        hints = []
        for name in unknown:
            close = difflib.get_close_matches(name, list(METRICS), n=1)
            hints.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        raise ValueError(
            "unknown metric name(s): " + ", ".join(hints) + "; add them to rcgrpo/metrics.py"
        )
