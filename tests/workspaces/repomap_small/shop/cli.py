"""Command line entry point of the shop."""

from shop.models import Order, Product
from shop.pricing import order_total


def main() -> None:
    order = Order("ada")
    order.add_line(Product("tea", 4.5), 3)
    print(order_total(order))
