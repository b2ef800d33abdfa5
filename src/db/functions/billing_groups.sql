-- Group commit of billing writes: several calls of one write function in one statement and one
-- commit. Each call runs in its own subtransaction (an exception block), so a call that raises
-- undoes only its own writes and answers its error (SQLSTATE and detail) in its row; the
-- others write as they would alone, in the order given. The server keeps a group well under 64
-- calls, the subtransactions a backend tracks before its snapshots overflow.

create or replace function sync_transactions(p_calls jsonb)
returns table (n integer, outcome text, tx_posted timestamptz, tx_created timestamptz, account jsonb, users jsonb,
               error_code text, error_detail text)
language plpgsql as $$
declare
  v_call jsonb;
begin
  for v_call, n in select c, i from jsonb_array_elements(p_calls) with ordinality as t(c, i) loop
    begin
      select s.outcome, s.tx_posted, s.tx_created, s.account, s.users
      into outcome, tx_posted, tx_created, account, users
      from sync_transaction(v_call->>'workspace_id', v_call->'transaction', v_call->'account', v_call->'allocations') s;
      error_code := null; error_detail := null;
    exception when others then
      get stacked diagnostics error_code = returned_sqlstate, error_detail = pg_exception_detail;
      outcome := null; tx_posted := null; tx_created := null; account := null; users := null;
    end;
    return next;
  end loop;
end
$$;

create or replace function create_invoices(p_calls jsonb)
returns table (n integer, outcome text, invoice_created timestamptz, users jsonb, products jsonb,
               error_code text, error_detail text)
language plpgsql as $$
declare
  v_call jsonb;
begin
  for v_call, n in select c, i from jsonb_array_elements(p_calls) with ordinality as t(c, i) loop
    begin
      select s.outcome, s.invoice_created, s.users, s.products into outcome, invoice_created, users, products
      from create_invoice(v_call->>'workspace_id', v_call->>'invoice_id', v_call->'tags', v_call->>'request_hash', v_call->'items') s;
      error_code := null; error_detail := null;
    exception when others then
      get stacked diagnostics error_code = returned_sqlstate, error_detail = pg_exception_detail;
      outcome := null; invoice_created := null; users := null; products := null;
    end;
    return next;
  end loop;
end
$$;
