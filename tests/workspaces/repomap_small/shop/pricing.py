"""Prices of orders, with discounts."""

from shop.models import Order, Product

DISCOUNT_THRESHOLD = 100.0


def line_total(product: Product, quantity: int) -> float:
    return product.unit_price * quantity


def order_total(order: Order) -> float:
    total = sum(line_total(product, quantity) for product, quantity in order.lines)
    return apply_discount(total)


def apply_discount(total: float) -> float:
    if total > DISCOUNT_THRESHOLD:
        return total * 0.9
    return total
