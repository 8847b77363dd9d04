"""The synth suite's data: initial-state builders, argument samplers and the request families.

A *family* is one kind of user request answered by one call of a real BFCL backend method.
Its sampler reads the LIVE backend instance (the generator executes every ground-truth call
on it, so the instance is the state model: later requests see earlier effects) and returns
the call's keyword arguments, or ``None`` when the request does not apply to the current
state (e.g. ``rm`` in an empty folder). Keys starting with ``_`` are text-only slots.
Templates are paraphrases formatted with the arguments; the last ``heldout_templates`` of
each family are reserved for the test split (see ``rcgrpo.env.synth``). The templates and
one-line descriptions are text, in :mod:`rcgrpo.env.synth_texts`; :data:`CALLS` holds the
rest of each family, :data:`FAMILIES` joins the two.

Samplers take ``v``, a :class:`rcgrpo.env.synth.Values` (fresh split-specific names, words,
numbers and ids; ``v.rng`` for choices among existing items) and the backend instance.
Every value a sampler invents comes from ``v``, so every argument is copied from the text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rcgrpo.env.synth_texts import DOCS, TEMPLATES

FS, MATH, TW, MSG, TK = "GorillaFileSystem", "MathAPI", "TwitterAPI", "MessageAPI", "TicketAPI"
CLASS_TAGS = {FS: "file_system", MATH: "math", TW: "twitter", MSG: "message", TK: "ticket"}
"""Backend class -> short tag used in task categories (``synth/<tag>[+<tag>...]``)."""


@dataclass(frozen=True)
class Family:
    """One request type: a backend method, an argument sampler and paraphrased templates."""

    name: str
    """Family id, e.g. ``fs_rename``."""
    cls: str
    """Backend class name (a key of BFCL's ``CLASS_FILE_PATH_MAPPING``)."""
    func: str
    """Backend method called by the ground truth."""
    sample: Callable[[Any, Any], dict[str, Any] | None]
    """``(values, live_instance) -> kwargs`` or ``None`` if not applicable now."""
    templates: tuple[str, ...]
    """Paraphrases of the request, ``str.format``-ed with the (text-rendered) arguments."""
    changes_state: bool
    """True: the call must change the instance's public state (checked by R_state);
    False: it is result-producing only (checked by R_action and BFCL's response check)."""
    doc: str
    """One-line description (the family table of ``docs/synth.md``)."""


Sampler = Callable[[Any, Any], dict[str, Any] | None]
"""A family's argument sampler (:attr:`Family.sample`)."""


def _pick(v: Any, items: list[Any]) -> Any:
    return v.rng.choice(items) if items else None


# ---------------------------------------------------------------- initial states


def init_file_system(v: Any) -> dict[str, Any]:
    """A root folder with 2-3 files and 1-2 sub-folders of 1-3 files each (BFCL layout)."""

    def files(k: int) -> dict[str, Any]:
        return {v.file_name(): {"type": "file", "content": v.phrase()} for _ in range(k)}

    root = files(v.rng.randint(2, 3))
    for _ in range(v.rng.randint(1, 2)):
        root[v.dir_name()] = {"type": "directory", "contents": files(v.rng.randint(1, 3))}
    return {"root": {v.word(): {"type": "directory", "contents": root}}}


def init_twitter(v: Any) -> dict[str, Any]:
    """A logged-in user, 2-3 other users (some followed) and 2-4 tweets by them."""
    others = [v.handle() for _ in range(v.rng.randint(2, 3))]
    ids = sorted(v.ident() for _ in range(v.rng.randint(2, 4)))
    tweets = {
        str(i): {
            "id": i,
            "username": v.rng.choice(others),
            "content": v.phrase(),
            "tags": [],
            "mentions": [],
        }
        for i in ids
    }
    return {
        "username": v.handle(),
        "password": v.word(),
        "authenticated": True,
        "tweets": tweets,
        "comments": {},
        "retweets": {},
        "following_list": others[: v.rng.randint(1, len(others))],
        "tweet_counter": ids[-1] + 1,
    }


def init_message(v: Any) -> dict[str, Any]:
    """3-4 users with ids ``USR<n>``, one logged in, 1-3 messages in the inbox."""
    names = [v.person() for _ in range(v.rng.randint(3, 4))]
    nums = [v.ident(100, 9999) for _ in names]
    user_map = {name: f"USR{n}" for name, n in zip(names, nums, strict=True)}
    me = v.rng.choice(list(user_map.values()))
    others = [i for i in user_map.values() if i != me]
    inbox = [{v.rng.choice(others): v.phrase()} for _ in range(v.rng.randint(1, 3))]
    # add_contact assigns USR<user_count + 1>: start above every existing id.
    return {
        "user_count": max(nums),
        "user_map": user_map,
        "inbox": inbox,
        "message_count": len(inbox),
        "current_user": me,
    }


def init_ticket(v: Any) -> dict[str, Any]:
    """A logged-in user with 2-4 open or in-progress tickets."""
    me = v.handle()
    queue = [
        {
            "id": i,
            "title": v.phrase(),
            "description": v.phrase(),
            "status": v.rng.choice(["Open", "In Progress"]),
            "priority": v.rng.randint(1, 5),
            "created_by": me,
        }
        for i in sorted(v.ident() for _ in range(v.rng.randint(2, 4)))
    ]
    return {"ticket_queue": queue, "ticket_counter": queue[-1]["id"] + 1, "current_user": me}


INITIAL_STATE: dict[str, Callable[[Any], dict[str, Any]] | None] = {
    FS: init_file_system,
    MATH: None,
    TW: init_twitter,
    MSG: init_message,
    TK: init_ticket,
}
"""Backend class -> builder of its ``initial_config`` entry (``None``: stateless)."""


# ---------------------------------------------------------------- samplers


def _files(fs: Any) -> list[str]:
    return [n for n, x in fs._current_dir.contents.items() if type(x).__name__ == "File"]


def _dirs(fs: Any) -> list[str]:
    return [n for n, x in fs._current_dir.contents.items() if type(x).__name__ == "Directory"]


def _move(v: Any, fs: Any) -> dict[str, Any] | None:
    src = _pick(v, _files(fs))
    dirs = [d for d in _dirs(fs) if src not in fs._current_dir.contents[d].contents]
    return {"source": src, "destination": _pick(v, dirs)} if src and dirs else None


def _grep(v: Any, fs: Any) -> dict[str, Any] | None:
    name = _pick(v, [f for f in _files(fs) if fs._current_dir.contents[f].content.split()])
    words = fs._current_dir.contents[name].content.split() if name else []
    return {"file_name": name, "pattern": v.rng.choice(words)} if name else None


def _others_tweets(tw: Any) -> list[int]:
    return [i for i, t in tw.tweets.items() if t["username"] != tw.username]


def _retweet(v: Any, tw: Any) -> dict[str, Any] | None:
    done = tw.retweets.get(tw.username, [])
    tid = _pick(v, [i for i in _others_tweets(tw) if i not in done])
    return {"tweet_id": tid} if tid is not None else None


def _existing(
    key: str, items: Callable[[Any], list[Any]], **fresh: Callable[[Any], Any]
) -> Callable[[Any, Any], dict[str, Any] | None]:
    """Sampler: ``key`` is an existing item of the live state, ``fresh`` args are new values."""

    def sample(v: Any, inst: Any) -> dict[str, Any] | None:
        item = _pick(v, items(inst))
        if item is None:
            return None
        return {key: item, **{k: draw(v) for k, draw in fresh.items()}}

    return sample


def _new(**fresh: Callable[[Any], Any]) -> Callable[[Any, Any], dict[str, Any]]:
    """Sampler: every argument is a fresh value."""
    return lambda v, inst: {k: draw(v) for k, draw in fresh.items()}


def _tickets_not(status: str) -> Callable[[Any], list[int]]:
    return lambda tk: [t["id"] for t in tk.ticket_queue if t["status"] != status]


def _priority(v: Any, tk: Any) -> dict[str, Any] | None:
    ticket = _pick(v, tk.ticket_queue)
    new = v.rng.choice([p for p in range(1, 6) if p != ticket["priority"]]) if ticket else 0
    return (
        {"ticket_id": ticket["id"], "updates": {"priority": new}, "_priority": new} if new else None
    )


def _receivers(m: Any) -> list[str]:
    return sorted({next(iter(msg)) for msg in m.inbox})


def _inbox_words(m: Any) -> list[str]:
    return [w for msg in m.inbox for w in next(iter(msg.values())).split()]


def _phrase(v: Any) -> str:
    return v.phrase()


def _number(v: Any) -> int | float:
    return v.number()


def _numbers(v: Any) -> list[int | float]:
    return [v.number() for _ in range(v.rng.randint(3, 4))]


def _file_name(v: Any) -> str:
    return v.file_name()


def _dir_name(v: Any) -> str:
    return v.dir_name()


def _person(v: Any) -> str:
    return v.person()


def _handle(v: Any) -> str:
    return v.handle()


def _tags(v: Any) -> list[str]:
    return ["#" + v.word()]


def _mentions(v: Any) -> list[str]:
    return [v.handle()]


def _ticket_priority(v: Any) -> int:
    return v.rng.randint(1, 5)


def _followed(tw: Any) -> list[str]:
    return list(tw.following_list)


def _other_users(m: Any) -> list[str]:
    return [i for i in m.user_map.values() if i != m.current_user]


def _ticket_ids(tk: Any) -> list[int]:
    return [t["id"] for t in tk.ticket_queue]


# ---------------------------------------------------------------- the family table

CALLS: tuple[tuple[str, str, str, Sampler, bool], ...] = (
    ("fs_touch", FS, "touch", _new(file_name=_file_name), True),
    ("fs_mkdir", FS, "mkdir", _new(dir_name=_dir_name), True),
    ("fs_echo", FS, "echo", _existing("file_name", _files, content=_phrase), True),
    ("fs_rename", FS, "mv", _existing("source", _files, destination=_file_name), True),
    ("fs_move", FS, "mv", _move, True),
    ("fs_copy", FS, "cp", _existing("source", _files, destination=_file_name), True),
    ("fs_rm", FS, "rm", _existing("file_name", _files), True),
    ("fs_cd", FS, "cd", _existing("folder", _dirs), False),
    ("fs_cat", FS, "cat", _existing("file_name", _files), False),
    ("fs_grep", FS, "grep", _grep, False),
    ("tw_post", TW, "post_tweet", _new(content=_phrase), True),
    ("tw_post_tag", TW, "post_tweet", _new(content=_phrase, tags=_tags), True),
    (
        "tw_comment",
        TW,
        "comment",
        _existing("tweet_id", _others_tweets, comment_content=_phrase),
        True,
    ),
    ("tw_retweet", TW, "retweet", _retweet, True),
    ("tw_follow", TW, "follow_user", _new(username_to_follow=_handle), True),
    ("tw_unfollow", TW, "unfollow_user", _existing("username_to_unfollow", _followed), True),
    (
        "tw_mention",
        TW,
        "mention",
        _existing("tweet_id", _others_tweets, mentioned_usernames=_mentions),
        True,
    ),
    (
        "msg_send",
        MSG,
        "send_message",
        _existing("receiver_id", _other_users, message=_phrase),
        True,
    ),
    ("msg_add_contact", MSG, "add_contact", _new(user_name=_person), True),
    ("msg_delete", MSG, "delete_message", _existing("receiver_id", _receivers), True),
    ("msg_search", MSG, "search_messages", _existing("keyword", _inbox_words), False),
    ("tk_create", TK, "create_ticket", _new(title=_phrase, priority=_ticket_priority), True),
    ("tk_close", TK, "close_ticket", _existing("ticket_id", _tickets_not("Closed")), True),
    (
        "tk_resolve",
        TK,
        "resolve_ticket",
        _existing("ticket_id", _tickets_not("Resolved"), resolution=_phrase),
        True,
    ),
    ("tk_priority", TK, "edit_ticket", _priority, True),
    ("tk_get", TK, "get_ticket", _existing("ticket_id", _ticket_ids), False),
    ("m_add", MATH, "add", _new(a=_number, b=_number), False),
    ("m_sub", MATH, "subtract", _new(a=_number, b=_number), False),
    ("m_mul", MATH, "multiply", _new(a=_number, b=_number), False),
    ("m_div", MATH, "divide", _new(a=_number, b=_number), False),
    ("m_mean", MATH, "mean", _new(numbers=_numbers), False),
    ("m_max", MATH, "max_value", _new(numbers=_numbers), False),
)
"""(family, backend class, method, argument sampler, changes_state), one row per family in
the order of the family table; the family's words are in :mod:`rcgrpo.env.synth_texts`."""

FAMILIES: tuple[Family, ...] = tuple(
    Family(name, cls, func, sample, TEMPLATES[name], changes_state, DOCS[name])
    for name, cls, func, sample, changes_state in CALLS
)
"""The request families: :data:`CALLS` with each family's templates and description."""

FAMILY_BY_NAME: dict[str, Family] = {f.name: f for f in FAMILIES}


def family_table() -> str:
    """Markdown table of the families, one line each (``docs/synth.md``, test-checked)."""
    rows = ["| family | call | request | first template |", "|---|---|---|---|"]
    rows += [f"| `{f.name}` | `{f.cls}.{f.func}` | {f.doc} | {f.templates[0]} |" for f in FAMILIES]
    return "\n".join(rows)
