"""A call that mutates an omitted mutable default must not leak into later episodes.

TwitterAPI.post_tweet(content, tags=[], mentions=[]) stores its default ``mentions`` list in
the new tweet; ``mention(tweet_id, mentioned_usernames)`` then extends that list. Without a
fresh copy per call, the shared default grows for the whole process.
"""

from __future__ import annotations

import inspect

from rcgrpo.env.bfcl import backend_class
from rcgrpo.env.decode import Call
from rcgrpo.env.executor import InstanceFactory, Sandbox


def test_mention_on_default_list_does_not_change_the_default():
    cls = backend_class("TwitterAPI")
    config = {
        "TwitterAPI": {
            "username": "alice",
            "password": "pw",
            "authenticated": True,
            "tweets": {},
            "comments": {},
            "retweets": {},
            "following_list": [],
            "tweet_counter": 0,
        }
    }
    default_before = inspect.signature(cls.post_tweet).parameters["mentions"].default
    assert default_before == []
    for _ in range(2):  # two independent episodes
        box = Sandbox(InstanceFactory(("TwitterAPI",), config, False).fresh())
        posted = box.run(Call("post_tweet", {"content": "hi"}, "post_tweet(content='hi')"))
        assert '"mentions": []' in posted
        box.run(Call("mention", {"tweet_id": 0, "mentioned_usernames": ["bob"]}, "mention(...)"))
    assert inspect.signature(cls.post_tweet).parameters["mentions"].default == []
