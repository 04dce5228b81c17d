"""Worlds: SQLite backends built from a template, their canonical state, hash and effects."""

from statebox.world._canonical import RowKey, Scalar, canonical_value, state_hash
from statebox.world._field_policy import ExcludedField, FieldPolicy
from statebox.world._state import RowEffect, State, apply_effects, effects
from statebox.world._view import WorldQueryError, WorldView
from statebox.world._world import TableInfo, World, WorldPool, WorldTemplate, WorldTx

__all__ = [
    "ExcludedField",
    "FieldPolicy",
    "RowEffect",
    "RowKey",
    "Scalar",
    "State",
    "TableInfo",
    "World",
    "WorldPool",
    "WorldQueryError",
    "WorldTemplate",
    "WorldTx",
    "WorldView",
    "apply_effects",
    "canonical_value",
    "effects",
    "state_hash",
]
