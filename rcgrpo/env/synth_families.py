"""The synth suite's data: initial-state builders and the table of request families.

A *family* is one kind of user request answered by one call of a real BFCL backend method.
Its sampler reads the LIVE backend instance (the generator executes every ground-truth call
on it, so the instance is the state model: later requests see earlier effects) and returns
the call's keyword arguments, or ``None`` when the request does not apply to the current
state (e.g. ``rm`` in an empty folder). Keys starting with ``_`` are text-only slots.
Templates are paraphrases formatted with the arguments; the last ``heldout_templates`` of
each family are reserved for the test split (see ``rcgrpo.env.synth``).

Samplers take ``v``, a :class:`rcgrpo.env.synth.Values` (fresh split-specific names, words,
numbers and ids; ``v.rng`` for choices among existing items) and the backend instance.
Every value a sampler invents comes from ``v``, so every argument is copied from the text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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


# ---------------------------------------------------------------- the family table

# fmt: off
FAMILIES: tuple[Family, ...] = (
    Family("fs_touch", FS, "touch", _new(file_name=lambda v: v.file_name()), (
        "Create a file named {file_name}.", "Make an empty file called {file_name}.",
        "I need a new file {file_name}.", "Please add a blank file {file_name} here."),
        True, "create an empty file with a fresh name in the current folder"),
    Family("fs_mkdir", FS, "mkdir", _new(dir_name=lambda v: v.dir_name()), (
        "Create a folder named {dir_name}.", "Make a new directory called {dir_name}.",
        "Add a directory {dir_name} here.", "I need a new folder {dir_name}."),
        True, "create a folder with a fresh name in the current folder"),
    Family("fs_echo", FS, "echo", _existing("file_name", _files, content=_phrase), (
        "Write '{content}' into {file_name}.", "Put the text '{content}' in {file_name}.",
        "Set the content of {file_name} to '{content}'.", "Save '{content}' to the file {file_name}."),
        True, "overwrite an existing file with a fresh phrase"),
    Family("fs_rename", FS, "mv", _existing("source", _files, destination=lambda v: v.file_name()), (
        "Rename {source} to {destination}.", "Change the name of {source} to {destination}.",
        "Give {source} the new name {destination}.", "Please call the file {source} {destination} now."),
        True, "rename an existing file to a fresh name"),
    Family("fs_move", FS, "mv", _move, (
        "Move {source} into the {destination} folder.", "Put {source} inside {destination}.",
        "Transfer {source} to the folder {destination}.", "Place {source} into the folder {destination}."),
        True, "move an existing file into an existing sub-folder"),
    Family("fs_copy", FS, "cp", _existing("source", _files, destination=lambda v: v.file_name()), (
        "Copy {source} to {destination}.", "Make a copy of {source} named {destination}.",
        "Duplicate {source} as {destination}.", "I want a copy of {source} called {destination}."),
        True, "copy an existing file to a fresh name"),
    Family("fs_rm", FS, "rm", _existing("file_name", _files), (
        "Delete {file_name}.", "Remove the file {file_name}.", "Get rid of {file_name}.",
        "Please erase {file_name}."),
        True, "delete an existing file"),
    Family("fs_cd", FS, "cd", _existing("folder", _dirs), (
        "Go into the {folder} folder.", "Change directory to {folder}.", "Open the folder {folder}.",
        "Switch to the directory {folder}."),
        False, "enter an existing sub-folder (later requests act there)"),
    Family("fs_cat", FS, "cat", _existing("file_name", _files), (
        "Show me what is in {file_name}.", "Print the contents of {file_name}.",
        "Read {file_name} for me.", "Display the file {file_name}."),
        False, "print an existing file"),
    Family("fs_grep", FS, "grep", _grep, (
        "Find lines with '{pattern}' in {file_name}.", "Search {file_name} for '{pattern}'.",
        "Which lines of {file_name} contain '{pattern}'?", "Look for '{pattern}' inside {file_name}."),
        False, "search an existing file for a word it contains"),
    Family("tw_post", TW, "post_tweet", _new(content=_phrase), (
        "Post a tweet saying '{content}'.", "Tweet '{content}'.", "Share '{content}' on Twitter.",
        "Publish a tweet with the text '{content}'."),
        True, "post a tweet with a fresh phrase"),
    Family("tw_post_tag", TW, "post_tweet",
        _new(content=_phrase, tags=lambda v: ["#" + v.word()]), (
        "Tweet '{content}' with the tag {tags}.", "Post '{content}' tagged {tags}.",
        "Share a tweet '{content}' and tag it {tags}.", "Publish '{content}' using the hashtag {tags}."),
        True, "post a tweet with a fresh phrase and one fresh #tag"),
    Family("tw_comment", TW, "comment",
        _existing("tweet_id", _others_tweets, comment_content=_phrase), (
        "Comment '{comment_content}' on tweet {tweet_id}.",
        "Reply to tweet {tweet_id} with '{comment_content}'.",
        "Add the comment '{comment_content}' to tweet {tweet_id}.",
        "Under tweet {tweet_id}, write '{comment_content}'."),
        True, "comment a fresh phrase on another user's tweet"),
    Family("tw_retweet", TW, "retweet", _retweet, (
        "Retweet tweet {tweet_id}.", "Share tweet {tweet_id} again as a retweet.",
        "Please retweet post {tweet_id}.", "Repost tweet {tweet_id}."),
        True, "retweet another user's tweet not yet retweeted"),
    Family("tw_follow", TW, "follow_user", _new(username_to_follow=lambda v: v.handle()), (
        "Follow {username_to_follow}.", "Start following the user {username_to_follow}.",
        "Add {username_to_follow} to the people I follow.", "I want to follow {username_to_follow}."),
        True, "follow a fresh user name"),
    Family("tw_unfollow", TW, "unfollow_user",
        _existing("username_to_unfollow", lambda tw: list(tw.following_list)), (
        "Unfollow {username_to_unfollow}.", "Stop following {username_to_unfollow}.",
        "Remove {username_to_unfollow} from the people I follow.",
        "I no longer want to follow {username_to_unfollow}."),
        True, "unfollow a followed user"),
    Family("tw_mention", TW, "mention",
        _existing("tweet_id", _others_tweets, mentioned_usernames=lambda v: [v.handle()]), (
        "Mention {mentioned_usernames} in tweet {tweet_id}.",
        "Tag the user {mentioned_usernames} on tweet {tweet_id}.",
        "Add a mention of {mentioned_usernames} to tweet {tweet_id}.",
        "In tweet {tweet_id}, mention {mentioned_usernames}."),
        True, "mention a fresh user name in another user's tweet"),
    Family("msg_send", MSG, "send_message", _existing(
        "receiver_id", lambda m: [i for i in m.user_map.values() if i != m.current_user],
        message=_phrase), (
        "Send '{message}' to {receiver_id}.", "Message {receiver_id}: '{message}'.",
        "Text user {receiver_id} the words '{message}'.", "Tell {receiver_id} '{message}' by message."),
        True, "send a fresh phrase to an existing user id"),
    Family("msg_add_contact", MSG, "add_contact", _new(user_name=lambda v: v.person()), (
        "Add {user_name} as a contact.", "Create a contact for {user_name}.",
        "Save {user_name} to my contacts.", "Put {user_name} in the contact list."),
        True, "add a fresh contact name"),
    Family("msg_delete", MSG, "delete_message", _existing("receiver_id", _receivers), (
        "Delete my last message to {receiver_id}.",
        "Remove the latest message I sent to {receiver_id}.",
        "Take back my newest message to {receiver_id}.",
        "Erase the most recent message for {receiver_id}."),
        True, "delete the latest message to a user id that has one"),
    Family("msg_search", MSG, "search_messages", _existing("keyword", _inbox_words), (
        "Search my messages for '{keyword}'.", "Find messages that mention '{keyword}'.",
        "Which messages contain '{keyword}'?", "Look up '{keyword}' in my messages."),
        False, "search the inbox for a word it contains"),
    Family("tk_create", TK, "create_ticket",
        _new(title=_phrase, priority=lambda v: v.rng.randint(1, 5)), (
        "Open a ticket titled '{title}' with priority {priority}.",
        "Create a priority {priority} ticket called '{title}'.",
        "File a new ticket '{title}', priority {priority}.",
        "Raise a ticket named '{title}' at priority {priority}."),
        True, "create a ticket with a fresh title and a priority 1-5"),
    Family("tk_close", TK, "close_ticket", _existing("ticket_id", _tickets_not("Closed")), (
        "Close ticket {ticket_id}.", "Mark ticket {ticket_id} as closed.",
        "Please shut ticket {ticket_id}.", "Ticket {ticket_id} is done, close it."),
        True, "close a ticket that is not closed"),
    Family("tk_resolve", TK, "resolve_ticket",
        _existing("ticket_id", _tickets_not("Resolved"), resolution=_phrase), (
        "Resolve ticket {ticket_id} with '{resolution}'.",
        "Mark ticket {ticket_id} resolved: '{resolution}'.",
        "Close out ticket {ticket_id} as resolved, noting '{resolution}'.",
        "Set ticket {ticket_id} to resolved with the note '{resolution}'."),
        True, "resolve a ticket with a fresh resolution phrase"),
    Family("tk_priority", TK, "edit_ticket", _priority, (
        "Set the priority of ticket {ticket_id} to {_priority}.",
        "Change ticket {ticket_id} to priority {_priority}.",
        "Make ticket {ticket_id} priority {_priority}.",
        "Update ticket {ticket_id} so its priority is {_priority}."),
        True, "change a ticket's priority (edit_ticket updates={'priority': p})"),
    Family("tk_get", TK, "get_ticket", _existing("ticket_id", lambda tk: [t["id"] for t in tk.ticket_queue]), (
        "Show me ticket {ticket_id}.", "Get the details of ticket {ticket_id}.",
        "Look up ticket {ticket_id}.", "What does ticket {ticket_id} say?"),
        False, "fetch an existing ticket"),
    Family("m_add", MATH, "add", _new(a=_number, b=_number), (
        "Add {a} and {b}.", "What is {a} plus {b}?", "Compute the sum of {a} and {b}.",
        "Calculate {a} + {b}."),
        False, "add two fresh numbers"),
    Family("m_sub", MATH, "subtract", _new(a=_number, b=_number), (
        "Subtract {b} from {a}.", "What is {a} minus {b}?", "Compute {a} - {b}.",
        "Take {b} away from {a}."),
        False, "subtract two fresh numbers (argument order matters)"),
    Family("m_mul", MATH, "multiply", _new(a=_number, b=_number), (
        "Multiply {a} by {b}.", "What is {a} times {b}?", "Compute the product of {a} and {b}.",
        "Calculate {a} * {b}."),
        False, "multiply two fresh numbers"),
    Family("m_div", MATH, "divide", _new(a=_number, b=_number), (
        "Divide {a} by {b}.", "What is {a} divided by {b}?", "Compute {a} / {b}.",
        "How much is {a} over {b}?"),
        False, "divide two fresh numbers (argument order matters)"),
    Family("m_mean", MATH, "mean", _new(numbers=_numbers), (
        "What is the mean of {numbers}?", "Average these numbers: {numbers}.",
        "Compute the average of {numbers}.", "Find the mean value of {numbers}."),
        False, "mean of 3-4 fresh numbers"),
    Family("m_max", MATH, "max_value", _new(numbers=_numbers), (
        "What is the largest of {numbers}?", "Find the maximum of {numbers}.",
        "Which is biggest: {numbers}?", "Give me the max of {numbers}."),
        False, "maximum of 3-4 fresh numbers"),
)
# fmt: on

FAMILY_BY_NAME: dict[str, Family] = {f.name: f for f in FAMILIES}


def family_table() -> str:
    """Markdown table of the families, one line each (``docs/synth.md``, test-checked)."""
    rows = ["| family | call | request | first template |", "|---|---|---|---|"]
    rows += [f"| `{f.name}` | `{f.cls}.{f.func}` | {f.doc} | {f.templates[0]} |" for f in FAMILIES]
    return "\n".join(rows)
