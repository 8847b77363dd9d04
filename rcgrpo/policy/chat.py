"""Template-consistent incremental tokenization of a conversation.

Every text goes through ``tokenizer.apply_chat_template`` (any model's own template); the
ids of an assistant message are never re-tokenized from its text. A conversation's ids are
built in segments::

    prompt_ids(m_0..m_k)                      render(history, generation prompt), tokenized
    [generated ids]                           exactly what the policy sampled (loss mask 1)
    continuation_ids(history, content, ...)   the template text after the generated ids up
                                              to the next generation prompt (loss mask 0)

The continuation is found by string difference: with ``before = render(history, gen=True)``
and ``after = render(history + [assistant] + observations, gen=True)``, ``after`` must start
with ``before + content`` (true for ChatML / Qwen2.5 / Llama-3 style templates that render
history verbatim; a template that rewrites earlier messages raises a ``ValueError``). If the
policy stopped on the template's end-of-message token, its text is skipped (it was
generated); otherwise (length cap, or another stop token) the template's end string stays in
the continuation as prompt tokens. Segments start right after a special token
(``<|im_end|>``), so tokenizing them separately gives the same ids as tokenizing the whole
text (checked in tests/unit/policy/test_chat.py).

The same code encodes expert conversations for SFT (:meth:`ChatEncoder.encode_conversation`),
so SFT data and rollouts share one tokenization.
"""

from __future__ import annotations

from collections.abc import Sequence


class ChatEncoder:
    """Renders with ``tokenizer``'s chat template and tokenizes segment by segment."""

    def __init__(self, tokenizer, stop_ids: Sequence[int] | None = None):
        if not getattr(tokenizer, "chat_template", None):
            raise ValueError("tokenizer must have a chat template (tokenizer.chat_template)")
        if tokenizer.eos_token_id is None:
            raise ValueError("tokenizer must define eos_token (the end-of-message token)")
        self.tokenizer = tokenizer
        self.eos_id: int = tokenizer.eos_token_id
        self.stop_ids: frozenset[int] = frozenset(stop_ids or ()) | {self.eos_id}

    def render(self, messages: Sequence[dict], generation_prompt: bool) -> str:
        return self.tokenizer.apply_chat_template(
            list(messages), tokenize=False, add_generation_prompt=generation_prompt
        )

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` without BOS/EOS (special-token strings map to their ids)."""
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def decode(self, ids: Sequence[int]) -> str:
        """Text of ``ids``; special tokens are kept as text (the template renders them back)."""
        return self.tokenizer.decode(list(ids), skip_special_tokens=False)

    def prompt_ids(self, messages: Sequence[dict]) -> list[int]:
        """Ids of ``messages`` rendered with the generation prompt (assistant header)."""
        return self.encode(self.render(messages, generation_prompt=True))

    def assistant_ids(self, content: str) -> list[int]:
        """Ids a policy 'generates' for a scripted text: ``encode(content) + [eos]``."""
        return self.encode(content) + [self.eos_id]

    def split_generated(self, ids: Sequence[int]) -> tuple[str, bool]:
        """(message text, stopped): text without the final stop token, if there is one."""
        stopped = bool(ids) and ids[-1] in self.stop_ids
        return self.decode(ids[:-1] if stopped else ids), stopped

    def continuation_ids(
        self,
        history: Sequence[dict],
        content: str,
        stop_id: int | None,
        observations: Sequence[dict],
        generation_prompt: bool = True,
    ) -> list[int]:
        """Ids of the template text between the generated ids and the next generation prompt.

        Args:
            history: messages before the assistant message (as rendered for generation).
            content: the assistant message text (the decoded generated ids minus the stop).
            stop_id: the stop token the policy generated last, or None (length cap).
            observations: messages appended after the assistant message (tool results,
                next user turn).
            generation_prompt: end with the next assistant header (False: the template text
                up to the end of ``observations``).
        """
        assistant = {"role": "assistant", "content": content}
        head = self.render(history, generation_prompt=True) + content
        after = self.render([*history, assistant, *observations], generation_prompt)
        if not after.startswith(head):
            raise ValueError(
                "the chat template does not render the conversation history verbatim "
                "(render(history + [assistant]) does not start with render(history, "
                "add_generation_prompt=True) + content); this template is not supported"
            )
        rest = after[len(head) :]
        if stop_id is not None:
            stop_text = self.decode([stop_id])
            if rest.startswith(stop_text):
                rest = rest[len(stop_text) :]
        return self.encode(rest)

    def encode_conversation(self, messages: Sequence[dict]) -> tuple[list[int], list[int]]:
        """(ids, loss mask) of a whole conversation, as a rollout would have produced it.

        Assistant messages are encoded as :meth:`assistant_ids` (mask 1, including the EOS);
        everything else, template headers included, has mask 0. The sequence ends at the
        last assistant message's EOS (trailing observations are dropped, as in rollouts).
        """
        turns = [i for i, m in enumerate(messages) if m["role"] == "assistant"]
        if not turns:
            raise ValueError("messages has no assistant message")
        if turns[0] == 0:
            raise ValueError("messages must not start with an assistant message")
        ids = self.prompt_ids(messages[: turns[0]])
        mask = [0] * len(ids)
        for k, i in enumerate(turns):
            generated = self.assistant_ids(messages[i]["content"])
            ids += generated
            mask += [1] * len(generated)
            if k + 1 < len(turns):
                nxt = turns[k + 1]
                cont = self.continuation_ids(
                    messages[:i], messages[i]["content"], self.eos_id, messages[i + 1 : nxt]
                )
                ids += cont
                mask += [0] * len(cont)
        return ids, mask
