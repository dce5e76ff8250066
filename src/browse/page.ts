export const PAGE_HTML = "<!doctype html><title>courier browse</title>";
