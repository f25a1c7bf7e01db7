"""gpt2-course's grader: course data in, honest verdicts out."""

__version__ = "0.1.0"
