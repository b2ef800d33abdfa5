-- create_invoice and create_invoices answer each line item's user and product as arrays in item
-- order, instead of per-call jsonb maps keyed by reference: the maps took 390–470 µs of a group
-- of about 17 creates to build, and the server looked every item up in them again. The result
-- type changes, so the old versions go; src/db/functions/ creates the new ones.
drop function if exists create_invoice(text, text, jsonb, text, jsonb);
drop function if exists create_invoices(jsonb);
