export interface Quote {
  sku: string;
  price: number;
}

export function quoteFor(sku: string): Quote {
  return { sku, price: 0 };
}
