-- a query that needs an index on orders (customer_id)
SELECT * FROM orders WHERE customer_id = $1;
