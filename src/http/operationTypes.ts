// The parts of an operation of a contract, as openapi-typescript generates it (`operations[id]`),
// turned into the types a handler receives and answers. Shared by every REST API Tally serves.

type Json<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;

/** The operation's JSON body; possibly undefined when the contract makes the body optional. */
export type RequestBodyOf<Operation> = Operation extends { requestBody: infer B }
  ? Json<NonNullable<B>>
  : Operation extends { requestBody?: infer B }
    ? Json<NonNullable<B>> | undefined
    : never;
export type PathParamsOf<Operation> = Operation extends { parameters: { path: infer P } } ? NonNullable<P> : never;
export type QueryParamsOf<Operation> = Operation extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

type SuccessStatus = 200 | 201;
/** One of the success responses the contract declares for the operation, with its typed body. */
export type ReplyOf<Operation extends { responses: object }> = {
  [S in SuccessStatus & keyof Operation['responses']]: { status: S; body: Json<Operation['responses'][S]> };
}[SuccessStatus & keyof Operation['responses']];
