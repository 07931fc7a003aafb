"""Prompt wording of the GRASP evaluation scripts that is not in the manifest.

The manifest carries each video's question text verbatim (docs/schema.md, `prompts[].text`); this module holds
only the wrappers the strategies add around it: the chain-of-thought opener, the one-shot example turn, the
Level 2 text-only instruction, and the system prompts of supplementary Section 4.
"""

from __future__ import annotations

# CoT first turn for tests without an open question (Movement, Ordering) and for plausibility questions.
COT_GENERIC = "What can you see in this video?"

# grasp/tests/level1_binary.py ONESHOT_PROMPT, verbatim ("with regards to", lower-case yes/no as in the code).
ONE_SHOT = (
    "This is an example of a question about this video and the correct answer.\n"
    "Question: {question}\n"
    "Answer: {answer}\n"
    "Next, I want you to answer my next question in the same way with regards to the next video."
)

# data/prompts/level2_scene_descriptions.json: instruction, newline, description.
TEXT_PLAUSIBILITY = (
    "Is the following scenario physically plausible? Do not assume that mechanisms or forces are at play other "
    "than the ones described in the text. Answer only with yes or no."
)

# Level 1 has no text-only mode in GRASP; ours puts the description first, then the question unchanged.
TEXT_LEVEL1 = "Scene description: {description}\n{question}"

# Supplementary Section 4: system prompts changed from the defaults so as not to clash with one-word answers.
# Matched by substring of the lower-cased model name; None = the model's own default (no system message sent).
SYSTEM_PROMPTS: dict[str, str] = {
    "video-chatgpt": (
        "You are Video-ChatGPT, a large vision-language assistant. You are able to understand the video content "
        "that the user provides, and answer their questions correctly. Follow the instructions carefully and give "
        "short answers based on the provided video."
    ),
    "video-llama": "You will be able to see a video once I provide it to you. Please answer my questions.",
    "vtimellm": (
        "A chat between a curious user and an artificial intelligence assistant. The assistant gives helpful and "
        "polite answers to the user's questions."
    ),
}


def default_system_prompt(model_name: str) -> str | None:
    name = model_name.lower().replace("_", "-")
    for key, prompt in SYSTEM_PROMPTS.items():
        if key in name:
            return prompt
    return None
