"""Back and forward through the tokens a person has looked at, as in a web browser."""

from __future__ import annotations


class History:
    """Visiting a token drops everything ahead of the current position, as a browser does."""

    def __init__(self, limit: int = 500) -> None:
        self.back_stack: list[int] = []
        self.forward_stack: list[int] = []
        self.current: int | None = None
        self.limit = limit

    def visit(self, token_id: int) -> None:
        if token_id == self.current:
            return
        if self.current is not None:
            self.back_stack.append(self.current)
            del self.back_stack[: -self.limit]
        self.current = token_id
        self.forward_stack.clear()

    def back(self) -> int | None:
        if not self.back_stack:
            return None
        if self.current is not None:
            self.forward_stack.append(self.current)
        self.current = self.back_stack.pop()
        return self.current

    def forward(self) -> int | None:
        if not self.forward_stack:
            return None
        if self.current is not None:
            self.back_stack.append(self.current)
        self.current = self.forward_stack.pop()
        return self.current

    @property
    def can_go_back(self) -> bool:
        return bool(self.back_stack)

    @property
    def can_go_forward(self) -> bool:
        return bool(self.forward_stack)

    def clear(self) -> None:
        self.back_stack.clear()
        self.forward_stack.clear()
        self.current = None
