"""Products and orders of the shop."""

from dataclasses import dataclass, field


@dataclass
class Product:
    sku: str
    unit_price: float


@dataclass
class Order:
    customer: str
    lines: list[tuple[Product, int]] = field(default_factory=list)

    def add_line(self, product: Product, quantity: int) -> None:
        self.lines.append((product, quantity))

    def quantity_of(self, sku: str) -> int:
        return sum(q for p, q in self.lines if p.sku == sku)
