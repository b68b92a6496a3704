// uWebSockets.js reads UWS_HTTP_MAX_HEADERS_SIZE once, when its binary loads (uws.ts imports this
// module first). Its default (4 KiB for the request line and headers together) answers longer
// requests with a bare `431` without the CORS header; at 64 KiB such requests reach the REST router,
// which answers 414 { error } above 8 KiB of URL (http/router.ts). A value set by the operator wins.
process.env.UWS_HTTP_MAX_HEADERS_SIZE ??= '65536';
export {};
