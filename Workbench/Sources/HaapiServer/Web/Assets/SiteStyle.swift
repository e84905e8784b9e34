extension SiteAssets {
    /// One small style sheet for every page: readable on a phone, visible focus, large touch targets.
    static let style = #"""
        :root { color-scheme: light dark; --accent: #2557d6; --error: #b3261e; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 17px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
        main { max-width: 30rem; margin: 0 auto; padding: 1.5rem 1rem 3rem; }
        h1 { font-size: 1.6rem; line-height: 1.25; margin: 0.5rem 0 1rem; }
        h2 { font-size: 1.2rem; margin: 1.75rem 0 0.5rem; }
        label { display: block; font-weight: 600; margin: 0.9rem 0 0.3rem; }
        input { width: 100%; font: inherit; padding: 0.65rem 0.75rem; border: 1px solid #8a8a8a; border-radius: 8px; }
        button, a.button { display: inline-block; width: 100%; margin-top: 1rem; padding: 0.75rem 1rem; font: inherit;
          font-weight: 600; text-align: center; text-decoration: none; color: #fff; background: var(--accent);
          border: 0; border-radius: 8px; cursor: pointer; }
        button.secondary { color: var(--accent); background: transparent; border: 1px solid var(--accent); }
        button:disabled { opacity: 0.6; cursor: progress; }
        :focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
        .error { color: var(--error); font-weight: 600; }
        .status:empty { display: none; }
        .status { padding: 0.6rem 0.75rem; border-radius: 8px; background: rgba(37, 87, 214, 0.1); }
        .status.error { background: rgba(179, 38, 30, 0.1); }
        .hint { color: #666; font-size: 0.95rem; }
        .links li { margin: 0.4rem 0; }
        code { font-size: 0.9em; overflow-wrap: anywhere; }
        main:has(.inspector), main:has(.exchange) { max-width: 64rem; }
        table.inspector, table.headers { border-collapse: collapse; width: 100%; font-size: 0.9rem; }
        table.inspector th, table.inspector td, table.headers th, table.headers td { text-align: left;
          padding: 0.25rem 0.5rem; border-bottom: 1px solid #ddd; vertical-align: top; overflow-wrap: anywhere; }
        table.headers th { width: 12rem; font-weight: 600; }
        tr.refused td, table.refusals td, table.refusals a { color: var(--error); }
        table.refusals code { color: inherit; }
        .refusal { border-left: 4px solid var(--error); padding: 0.25rem 0.75rem; background: rgba(179, 38, 30, 0.06); }
        .exchange { border-top: 1px solid #ccc; margin-top: 1.5rem; }
        .exchange:target { background: rgba(37, 87, 214, 0.06); }
        pre { overflow-x: auto; padding: 0.5rem; background: #f4f4f4; border-radius: 6px; font-size: 0.85rem; }
        svg.sequence { width: 100%; height: auto; display: block; }
        svg.sequence a:hover text, svg.sequence a:focus text { text-decoration: underline; }
        """#
}
