// NATS access, as functions use it: connections followed from a NatsConnection, the pool they are
// kept in, the requests of the JetStream, server and system APIs, and paging through JSZ answers.
export * from "./connection-settings.ts";
export * from "./connection.ts";
export * from "./jsz-pages.ts";
export * from "./pool.ts";
export * from "./request.ts";
export * from "./statsz.ts";
