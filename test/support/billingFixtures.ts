/** A valid POST /billing/products body: product `coffee`, paid by a buyer to a seller (roles created by name). */
export const coffeeProduct = {
  code: 'coffee',
  description: 'Coffee',
  paid_by_roles: [{ name: 'buyer' }],
  paid_to_roles: [{ name: 'seller' }],
};
