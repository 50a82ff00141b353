"""SQLite backend that loads sqlite-vec on every new connection.

Django's own sqlite3 backend is bound to the stdlib ``sqlite3`` module at import time. The stdlib
module on many Linux builds cannot load extensions, so this backend picks its driver at runtime:
the stdlib when it can load extensions, else ``pysqlite3`` (Linux x86-64 wheels), else
``sqlean`` (macOS, Windows, arm64). Three things a naive subclass gets wrong (TECH_NOTES §3):

1. Django's cursor wrapper subclasses the *stdlib* ``Cursor``; a foreign connection refuses it, so
   we build the same wrapper on the chosen driver's ``Cursor``.
2. Adapters and converters are registered on the stdlib module only; we register them again.
3. ``Database`` must name the chosen driver so that ``DatabaseErrorWrapper`` maps its exceptions
   to ``django.db.IntegrityError`` and friends.
"""

from __future__ import annotations

import datetime
import decimal
import importlib
import sqlite3
from collections.abc import Mapping
from itertools import tee

import sqlite_vec
from django.db.backends.sqlite3 import base as sqlite3_base
from django.db.backends.sqlite3._functions import register as register_functions
from django.utils.asyncio import async_unsafe
from django.utils.dateparse import parse_date, parse_datetime, parse_time


def _can_load_extensions(module) -> bool:
    return hasattr(module.Connection, "enable_load_extension")


def _pick_driver():
    if _can_load_extensions(sqlite3):
        return sqlite3.dbapi2
    for name in ("pysqlite3.dbapi2", "sqlean.dbapi2"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if _can_load_extensions(module):
            return module
    raise ImportError(
        "No SQLite driver that can load extensions: install pysqlite3-binary (Linux x86-64) "
        "or sqlean.py (macOS, Windows, arm64)."
    )


Database = _pick_driver()

if Database is not sqlite3.dbapi2:
    # Same registrations as django/db/backends/sqlite3/base.py, on the chosen driver.
    Database.register_converter("bool", b"1".__eq__)
    Database.register_converter("date", sqlite3_base.decoder(parse_date))
    Database.register_converter("time", sqlite3_base.decoder(parse_time))
    Database.register_converter("datetime", sqlite3_base.decoder(parse_datetime))
    Database.register_converter("timestamp", sqlite3_base.decoder(parse_datetime))
    Database.register_adapter(decimal.Decimal, str)
    Database.register_adapter(datetime.date, sqlite3_base.adapt_date)
    Database.register_adapter(datetime.datetime, sqlite3_base.adapt_datetime)


class SQLiteCursorWrapper(Database.Cursor):
    """Django's format/pyformat → qmark/named conversion, on the chosen driver's cursor."""

    convert_query = sqlite3_base.SQLiteCursorWrapper.convert_query

    def execute(self, query, params=None):
        if params is None:
            return super().execute(query)
        param_names = list(params) if isinstance(params, Mapping) else None
        return super().execute(self.convert_query(query, param_names=param_names), params)

    def executemany(self, query, param_list):
        peekable, param_list = tee(iter(param_list))
        if (params := next(peekable, None)) and isinstance(params, Mapping):
            param_names = list(params)
        else:
            param_names = None
        return super().executemany(self.convert_query(query, param_names=param_names), param_list)


class DatabaseWrapper(sqlite3_base.DatabaseWrapper):
    Database = Database

    @async_unsafe
    def get_new_connection(self, conn_params):
        conn = Database.connect(**conn_params)
        conn.enable_load_extension(True)
        try:
            sqlite_vec.load(conn)
        finally:
            conn.enable_load_extension(False)
        register_functions(conn)
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA legacy_alter_table = OFF")
        for init_command in self.init_commands:
            if init_command := init_command.strip():
                conn.execute(init_command)
        return conn

    def create_cursor(self, name=None):
        return self.connection.cursor(factory=SQLiteCursorWrapper)
