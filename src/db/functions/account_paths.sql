-- Account paths: an account's path is its segments (iks, or chart keys with an optional
-- ':<template value>') joined with '/'. A subtree is the account and every path under it.

-- A LIKE pattern matching the text literally: `a.path like like_prefix(root.path) || '/%'` is
-- the subtree under root.
create or replace function like_prefix(p_text text) returns text
language sql immutable as $$
  select replace(replace(replace(p_text, '\', '\\'), '%', '\%'), '_', '\_')
$$;

-- The concrete account paths of a chart path, as a regular expression: each segment may carry
-- a template value (`users` matches `users:u1`).
create or replace function chart_path_pattern(p_chart_path text) returns text
language sql immutable as $$
  select '^' || string_agg(regexp_replace(s.segment, '([.^$*+?()\[\]{}|\\-])', '\\\1', 'g') || '(:[^/]+)?', '/' order by s.n) || '$'
  from unnest(string_to_array(p_chart_path, '/')) with ordinality as s(segment, n)
$$;
