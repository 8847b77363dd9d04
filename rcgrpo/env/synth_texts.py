"""The words of the synth suite's request families (:mod:`rcgrpo.env.synth_families`).

Keyed by family name, in the order of :data:`rcgrpo.env.synth_families.FAMILIES`:
:data:`DOCS`, each family's one-line description (the family table of ``docs/synth.md``), and
:data:`TEMPLATES`, its paraphrases of the request, ``str.format``-ed with the (text-rendered)
arguments; the last ``heldout_templates`` of each family are reserved for the test split
(:mod:`rcgrpo.env.synth`). Text only: the family's backend call and argument sampler are in
:data:`rcgrpo.env.synth_families.CALLS`.
"""

from __future__ import annotations

DOCS: dict[str, str] = {
    "fs_touch": "create an empty file with a fresh name in the current folder",
    "fs_mkdir": "create a folder with a fresh name in the current folder",
    "fs_echo": "overwrite an existing file with a fresh phrase",
    "fs_rename": "rename an existing file to a fresh name",
    "fs_move": "move an existing file into an existing sub-folder",
    "fs_copy": "copy an existing file to a fresh name",
    "fs_rm": "delete an existing file",
    "fs_cd": "enter an existing sub-folder (later requests act there)",
    "fs_cat": "print an existing file",
    "fs_grep": "search an existing file for a word it contains",
    "tw_post": "post a tweet with a fresh phrase",
    "tw_post_tag": "post a tweet with a fresh phrase and one fresh #tag",
    "tw_comment": "comment a fresh phrase on another user's tweet",
    "tw_retweet": "retweet another user's tweet not yet retweeted",
    "tw_follow": "follow a fresh user name",
    "tw_unfollow": "unfollow a followed user",
    "tw_mention": "mention a fresh user name in another user's tweet",
    "msg_send": "send a fresh phrase to an existing user id",
    "msg_add_contact": "add a fresh contact name",
    "msg_delete": "delete the latest message to a user id that has one",
    "msg_search": "search the inbox for a word it contains",
    "tk_create": "create a ticket with a fresh title and a priority 1-5",
    "tk_close": "close a ticket that is not closed",
    "tk_resolve": "resolve a ticket with a fresh resolution phrase",
    "tk_priority": "change a ticket's priority (edit_ticket updates={'priority': p})",
    "tk_get": "fetch an existing ticket",
    "m_add": "add two fresh numbers",
    "m_sub": "subtract two fresh numbers (argument order matters)",
    "m_mul": "multiply two fresh numbers",
    "m_div": "divide two fresh numbers (argument order matters)",
    "m_mean": "mean of 3-4 fresh numbers",
    "m_max": "maximum of 3-4 fresh numbers",
}
"""Family -> one-line description."""

TEMPLATES: dict[str, tuple[str, ...]] = {
    "fs_touch": (
        "Create a file named {file_name}.",
        "Make an empty file called {file_name}.",
        "I need a new file {file_name}.",
        "Please add a blank file {file_name} here.",
    ),
    "fs_mkdir": (
        "Create a folder named {dir_name}.",
        "Make a new directory called {dir_name}.",
        "Add a directory {dir_name} here.",
        "I need a new folder {dir_name}.",
    ),
    "fs_echo": (
        "Write '{content}' into {file_name}.",
        "Put the text '{content}' in {file_name}.",
        "Set the content of {file_name} to '{content}'.",
        "Save '{content}' to the file {file_name}.",
    ),
    "fs_rename": (
        "Rename {source} to {destination}.",
        "Change the name of {source} to {destination}.",
        "Give {source} the new name {destination}.",
        "Please call the file {source} {destination} now.",
    ),
    "fs_move": (
        "Move {source} into the {destination} folder.",
        "Put {source} inside {destination}.",
        "Transfer {source} to the folder {destination}.",
        "Place {source} into the folder {destination}.",
    ),
    "fs_copy": (
        "Copy {source} to {destination}.",
        "Make a copy of {source} named {destination}.",
        "Duplicate {source} as {destination}.",
        "I want a copy of {source} called {destination}.",
    ),
    "fs_rm": (
        "Delete {file_name}.",
        "Remove the file {file_name}.",
        "Get rid of {file_name}.",
        "Please erase {file_name}.",
    ),
    "fs_cd": (
        "Go into the {folder} folder.",
        "Change directory to {folder}.",
        "Open the folder {folder}.",
        "Switch to the directory {folder}.",
    ),
    "fs_cat": (
        "Show me what is in {file_name}.",
        "Print the contents of {file_name}.",
        "Read {file_name} for me.",
        "Display the file {file_name}.",
    ),
    "fs_grep": (
        "Find lines with '{pattern}' in {file_name}.",
        "Search {file_name} for '{pattern}'.",
        "Which lines of {file_name} contain '{pattern}'?",
        "Look for '{pattern}' inside {file_name}.",
    ),
    "tw_post": (
        "Post a tweet saying '{content}'.",
        "Tweet '{content}'.",
        "Share '{content}' on Twitter.",
        "Publish a tweet with the text '{content}'.",
    ),
    "tw_post_tag": (
        "Tweet '{content}' with the tag {tags}.",
        "Post '{content}' tagged {tags}.",
        "Share a tweet '{content}' and tag it {tags}.",
        "Publish '{content}' using the hashtag {tags}.",
    ),
    "tw_comment": (
        "Comment '{comment_content}' on tweet {tweet_id}.",
        "Reply to tweet {tweet_id} with '{comment_content}'.",
        "Add the comment '{comment_content}' to tweet {tweet_id}.",
        "Under tweet {tweet_id}, write '{comment_content}'.",
    ),
    "tw_retweet": (
        "Retweet tweet {tweet_id}.",
        "Share tweet {tweet_id} again as a retweet.",
        "Please retweet post {tweet_id}.",
        "Repost tweet {tweet_id}.",
    ),
    "tw_follow": (
        "Follow {username_to_follow}.",
        "Start following the user {username_to_follow}.",
        "Add {username_to_follow} to the people I follow.",
        "I want to follow {username_to_follow}.",
    ),
    "tw_unfollow": (
        "Unfollow {username_to_unfollow}.",
        "Stop following {username_to_unfollow}.",
        "Remove {username_to_unfollow} from the people I follow.",
        "I no longer want to follow {username_to_unfollow}.",
    ),
    "tw_mention": (
        "Mention {mentioned_usernames} in tweet {tweet_id}.",
        "Tag the user {mentioned_usernames} on tweet {tweet_id}.",
        "Add a mention of {mentioned_usernames} to tweet {tweet_id}.",
        "In tweet {tweet_id}, mention {mentioned_usernames}.",
    ),
    "msg_send": (
        "Send '{message}' to {receiver_id}.",
        "Message {receiver_id}: '{message}'.",
        "Text user {receiver_id} the words '{message}'.",
        "Tell {receiver_id} '{message}' by message.",
    ),
    "msg_add_contact": (
        "Add {user_name} as a contact.",
        "Create a contact for {user_name}.",
        "Save {user_name} to my contacts.",
        "Put {user_name} in the contact list.",
    ),
    "msg_delete": (
        "Delete my last message to {receiver_id}.",
        "Remove the latest message I sent to {receiver_id}.",
        "Take back my newest message to {receiver_id}.",
        "Erase the most recent message for {receiver_id}.",
    ),
    "msg_search": (
        "Search my messages for '{keyword}'.",
        "Find messages that mention '{keyword}'.",
        "Which messages contain '{keyword}'?",
        "Look up '{keyword}' in my messages.",
    ),
    "tk_create": (
        "Open a ticket titled '{title}' with priority {priority}.",
        "Create a priority {priority} ticket called '{title}'.",
        "File a new ticket '{title}', priority {priority}.",
        "Raise a ticket named '{title}' at priority {priority}.",
    ),
    "tk_close": (
        "Close ticket {ticket_id}.",
        "Mark ticket {ticket_id} as closed.",
        "Please shut ticket {ticket_id}.",
        "Ticket {ticket_id} is done, close it.",
    ),
    "tk_resolve": (
        "Resolve ticket {ticket_id} with '{resolution}'.",
        "Mark ticket {ticket_id} resolved: '{resolution}'.",
        "Close out ticket {ticket_id} as resolved, noting '{resolution}'.",
        "Set ticket {ticket_id} to resolved with the note '{resolution}'.",
    ),
    "tk_priority": (
        "Set the priority of ticket {ticket_id} to {_priority}.",
        "Change ticket {ticket_id} to priority {_priority}.",
        "Make ticket {ticket_id} priority {_priority}.",
        "Update ticket {ticket_id} so its priority is {_priority}.",
    ),
    "tk_get": (
        "Show me ticket {ticket_id}.",
        "Get the details of ticket {ticket_id}.",
        "Look up ticket {ticket_id}.",
        "What does ticket {ticket_id} say?",
    ),
    "m_add": (
        "Add {a} and {b}.",
        "What is {a} plus {b}?",
        "Compute the sum of {a} and {b}.",
        "Calculate {a} + {b}.",
    ),
    "m_sub": (
        "Subtract {b} from {a}.",
        "What is {a} minus {b}?",
        "Compute {a} - {b}.",
        "Take {b} away from {a}.",
    ),
    "m_mul": (
        "Multiply {a} by {b}.",
        "What is {a} times {b}?",
        "Compute the product of {a} and {b}.",
        "Calculate {a} * {b}.",
    ),
    "m_div": (
        "Divide {a} by {b}.",
        "What is {a} divided by {b}?",
        "Compute {a} / {b}.",
        "How much is {a} over {b}?",
    ),
    "m_mean": (
        "What is the mean of {numbers}?",
        "Average these numbers: {numbers}.",
        "Compute the average of {numbers}.",
        "Find the mean value of {numbers}.",
    ),
    "m_max": (
        "What is the largest of {numbers}?",
        "Find the maximum of {numbers}.",
        "Which is biggest: {numbers}?",
        "Give me the max of {numbers}.",
    ),
}
"""Family -> paraphrases of its request."""
