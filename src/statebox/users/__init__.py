"""Simulated users: the scripted user."""

from statebox.users._scripted import ScriptedUser

__all__ = ["ScriptedUser"]
