"""The process environment: what deepread reads from it, and how it leaves it untouched.

``settings`` is the one place the environment variables are read (everything else takes explicit
values); ``quiet_import`` imports the dependencies that would otherwise phone home or
change the host's environment. The bottom layer: it imports nothing of deepread.
"""
