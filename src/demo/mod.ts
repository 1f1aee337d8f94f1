/**
 * The demo shop behind `deno task serve`, `deno task demo` and the Deploy entry: eleven capabilities over
 * in-memory data, built only with the public API.
 *
 * @module
 */
export { buildDemoServer, type DemoServerOptions, registerDemoCapabilities } from "./catalog.ts";
