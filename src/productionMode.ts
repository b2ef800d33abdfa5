// Imported first by the server's entry point, before any library reads NODE_ENV: the server runs
// in production mode unless told otherwise. graphql-js then checks types with a plain instanceof;
// its development check for a duplicate copy of itself took 2 % of the server's CPU on batches.
process.env.NODE_ENV ??= 'production';
