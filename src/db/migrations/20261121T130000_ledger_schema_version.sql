-- The schema version a ledger was created on (null: the latest at the time, or no schema).
alter table ledgers add column schema_version integer check (schema_version >= 1);
