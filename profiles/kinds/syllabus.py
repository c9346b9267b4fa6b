"""A course syllabus: what its front says it is.

A syllabus names its kind in a word ("SYLLABUS" on its first line, "syllabus" in its
file name) and its period as the term it is taught in: "Fall 2021", "Spring semester,
2023", "2022 Fall". Its name (the course's code and title) is its own title or first
line, read by the general rules; its fields' labels ("Course Title:", "Course
Frequency:") are labels there too.
"""

from __future__ import annotations

import re

from deepread.profiles.profile import Period, Profile

#: The term a course is taught in, named with its year (either first).
PERIODS = (
    Period(
        re.compile(
            r"\b(fall|spring|summer|winter|autumn)(?:\s+(?:semester|term|quarter))?"
            r",?\s+(\d{4})\b",
            re.I,
        ),
        lambda m: f"{m[1].capitalize()} {m[2]}",
    ),
    Period(
        re.compile(r"\b(\d{4})\s+(fall|spring|summer|winter|autumn)\b", re.I),
        lambda m: f"{m[2].capitalize()} {m[1]}",
    ),
)

PROFILE = Profile(name="syllabus", kinds=("syllabus",), periods=PERIODS)
