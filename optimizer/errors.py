"""Errors the CLI turns into exit code 2: bad input files, catalogs, overrides and options."""

from __future__ import annotations


class PlacementInputError(Exception):
    """Bad input that the user must fix; ``problems`` lists every one of them, one line each."""

    def __init__(self, problems: list[str], title: str = "invalid input") -> None:
        self.problems = list(problems)
        self.title = title
        super().__init__(self.__str__())

    def __str__(self) -> str:
        count = len(self.problems)
        noun = "problem" if count == 1 else "problems"
        return f"{self.title}: {count} {noun}\n" + "\n".join(f"  - {p}" for p in self.problems)


class CatalogError(PlacementInputError):
    """The catalog file or an override is invalid."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(problems, title="invalid catalog")
