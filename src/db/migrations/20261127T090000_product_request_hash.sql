-- Product create replays like the other creates: the code is the idempotency key, and the
-- fingerprint of the creating request tells a replay (200 with the stored product) from another
-- body (409 product_code_taken). Products created before this column have no fingerprint; a
-- create with their code keeps answering 409, as it did when they were created.
alter table products add column request_hash text;
