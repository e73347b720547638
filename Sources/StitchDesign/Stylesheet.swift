import Foundation

/// The web app's stylesheet: the tokens as CSS custom properties, then the components that use
/// only those properties.
public enum Stylesheet {
    public static func customProperties() -> String {
        var lines: [String] = [":root {"]
        for (name, color) in Palette.all { lines.append("  --color-\(kebab(name)): \(color.hex);") }
        for (name, value) in Spacing.all { lines.append("  --space-\(name): \(value)px;") }
        for (name, value) in Radius.all { lines.append("  --radius-\(name): \(value)px;") }
        for (name, shadow) in Shadow.all { lines.append("  --shadow-\(name): \(shadow.css);") }
        for (name, style) in TypeStyle.all {
            lines.append("  --font-\(kebab(name)): \(style.weight) \(style.size)px/1.35 \(style.fontStack);")
        }
        for (name, spring) in Spring.all {
            lines.append("  --spring-\(name): \(spring.cssDuration) \(spring.cssEasing);")
        }
        lines.append("  --stagger-delay: \(Int(Spring.staggerDelay * 1000))ms;")
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    static func kebab(_ name: String) -> String {
        name.reduce(into: "") { out, c in
            if c.isUppercase { out += "-" + c.lowercased() } else { out.append(c) }
        }
    }

    public static func css(fontsBase: String) -> String {
        [fonts(fontsBase), frame, components, viewers, pages].joined(separator: "\n")
    }

    /// The two faces (WOFF2, Latin subsets) and the design tokens.
    static func fonts(_ fontsBase: String) -> String {
        """
        @font-face { font-family: 'Playfair Display'; src: url('\(fontsBase)/PlayfairDisplay.woff2') format('woff2'); font-weight: 400 900; font-display: optional; }
        @font-face { font-family: 'Source Serif 4'; src: url('\(fontsBase)/SourceSerif4.woff2') format('woff2'); font-weight: 200 700; font-display: optional; }
        \(customProperties())
        """
    }

    /// Type, the page's frame and navigation: a tab bar on a phone, a sidebar from 768 px.
    static var frame: String {
        """
        *, *::before, *::after { box-sizing: border-box; }
        html { -webkit-text-size-adjust: 100%; }
        body { margin: 0; background: var(--color-linen); color: var(--color-espresso); font: var(--font-body); min-height: 100vh; }
        a { color: var(--color-walnut); }
        :focus-visible { outline: 3px solid var(--color-terracotta); outline-offset: 2px; border-radius: var(--radius-subtle); }
        h1 { font: var(--font-large-title); margin: 0 0 var(--space-lg); }
        h2 { font: var(--font-title2); margin: var(--space-xl) 0 var(--space-md); }
        h3 { font: var(--font-title3); margin: var(--space-lg) 0 var(--space-sm); }
        .data { font: var(--font-data); }
        .muted { color: var(--color-walnut); font: var(--font-subheadline); }
        .footnote { font: var(--font-footnote); color: var(--color-walnut); }
        .shell { display: flex; min-height: 100vh; }
        .sidebar { display: none; }
        main { flex: 1; padding: var(--space-lg) var(--space-lg) calc(88px + env(safe-area-inset-bottom)); max-width: 960px; margin: 0 auto; width: 100%; }
        .tabbar { position: fixed; left: 0; right: 0; bottom: 0; display: flex; background: var(--color-cream); border-top: 1px solid var(--color-slate);
                  box-shadow: var(--shadow-floating); padding-bottom: env(safe-area-inset-bottom); z-index: 10; }
        .tabbar a, .sidebar a { flex: 1; display: flex; flex-direction: column; align-items: center; justify-content: center; gap: var(--space-xxs);
                  min-height: 56px; text-decoration: none; color: var(--color-walnut); font: var(--font-footnote); }
        .tabbar a[aria-current="page"], .sidebar a[aria-current="page"] { color: var(--color-espresso); font-weight: 700; }
        .tabbar .icon, .sidebar .icon { font-size: 22px; line-height: 1; }
        @media (min-width: 768px) {
          .tabbar { display: none; }
          .sidebar { display: flex; flex-direction: column; gap: var(--space-xs); width: 220px; padding: var(--space-xl) var(--space-md);
                     background: var(--color-parchment); border-right: 1px solid var(--color-slate); position: sticky; top: 0; height: 100vh; }
          .sidebar .brand { font: var(--font-title2); margin-bottom: var(--space-lg); padding: 0 var(--space-sm); }
          .sidebar a { flex: none; flex-direction: row; justify-content: flex-start; gap: var(--space-md); padding: 0 var(--space-md);
                       border-radius: var(--radius-subtle); font: var(--font-headline); min-height: 48px; }
          .sidebar a[aria-current="page"] { background: var(--color-cream); box-shadow: var(--shadow-subtle); }
          main { padding: var(--space-xxl); }
        }
        .split-empty, .split-list { display: none; }
        @media (min-width: 1024px) {
          main.split-main { max-width: 1440px; padding: var(--space-xl) var(--space-lg); }
          .split { display: grid; grid-template-columns: minmax(260px, 340px) minmax(0, 1fr); gap: var(--space-lg); align-items: start; }
          .split-list .project-group:first-child h2 { margin-top: 0; }
          .split-list { display: block; position: sticky; top: var(--space-lg); max-height: calc(100vh - 2 * var(--space-lg)); overflow-y: auto;
                        padding: var(--space-xxs); }
          .split-list .row.current { box-shadow: 0 0 0 2px var(--color-terracotta); }
          .split-empty { display: flex; align-items: center; justify-content: center; min-height: 240px; position: sticky; top: var(--space-lg); }
        }
        """
    }

    /// Lists and rows, swatches, badges, readiness, the stepper, buttons, forms and empty states.
    static var components: String {
        """
        .toolbar { display: flex; flex-wrap: wrap; gap: var(--space-sm); align-items: end; margin-bottom: var(--space-lg); }
        .toolbar h1 { flex: 1 1 100%; margin: 0; }
        .card, .row { background: var(--color-cream); border-radius: var(--radius-card); box-shadow: var(--shadow-subtle); }
        .card { padding: var(--space-lg); margin-bottom: var(--space-md); }
        .list { list-style: none; margin: 0; padding: 0; display: grid; grid-template-columns: minmax(0, 1fr); gap: var(--space-sm); }
        /* A row is as wide as the list, whatever width an unpainted row remembers from a wider window. */
        .list > li { min-width: 0; }
        .row { display: flex; align-items: center; gap: var(--space-md); padding: var(--space-md); min-height: 64px;
               animation: reveal var(--spring-gentle) both; }
        .row .grow { flex: 1; min-width: 0; }
        .row a.title { color: var(--color-espresso); text-decoration: none; font: var(--font-headline); }
        @keyframes reveal { from { opacity: 0; transform: translateY(6px); } to { opacity: 1; transform: none; } }
        \((1...12).map { ".list > li:nth-child(\($0)) { animation-delay: calc(var(--stagger-delay) * \($0 - 1)); }" }.joined(separator: "\n"))
        /* Past the twelfth row (below a phone's screen) a list's rows come without the reveal, and are
           laid out and painted only when scrolled near: a long list costs a slow phone's CPU what its
           first screen does (#64). `auto` keeps their last measured height once they have been seen. */
        .list > li:nth-child(n+13) { animation: none; content-visibility: auto; contain-intrinsic-size: auto 80px; }
        /* The tablet's list beside an item is scrolled to it at once, by the rows' real heights. */
        .split-list .list > li { content-visibility: visible; }
        .swatch { width: 40px; height: 40px; border-radius: 50%; border: 1px solid var(--color-slate); flex: none; display: grid; place-items: center;
                  background: var(--color-parchment); color: var(--color-walnut); font-weight: 700; }
        .swatch.small { width: 14px; height: 14px; display: inline-block; vertical-align: -2px; }
        .catalog-results { margin: var(--space-xs) 0 var(--space-md); }
        .catalog-results .row { padding: 0; min-height: 0; }
        .catalog-pick { display: flex; align-items: center; justify-content: flex-start; gap: var(--space-md); width: 100%; min-height: 56px; padding: var(--space-sm) var(--space-md);
                        background: none; border: 0; text-align: left; font: inherit; color: var(--color-espresso); cursor: pointer; }
        .thumb { width: 64px; height: 64px; border-radius: var(--radius-subtle); object-fit: cover; background: var(--color-parchment); flex: none;
                 display: grid; place-items: center; color: var(--color-walnut); }
        .hero { width: 100%; max-height: 420px; object-fit: cover; border-radius: var(--radius-card); box-shadow: var(--shadow-elevated); background: var(--color-parchment); }
        .badge { display: inline-flex; align-items: center; gap: var(--space-xs); padding: var(--space-xxs) var(--space-sm); border-radius: 999px;
                 font: 700 19px/1.2 \(TypeStyle.body.fontStack); color: var(--color-espresso); }
        .badge.planned { background: var(--color-parchment); border: 1px dashed var(--color-walnut); }
        .badge.wip { background: var(--color-terracotta-light); }
        .badge.at_finishing { background: var(--color-dusty-rose); }
        .badge.completed { background: var(--color-sage); }
        .badge.mesh { background: var(--color-parchment); font: var(--font-data); font-size: 15px; }
        .readiness { display: inline-block; width: 14px; height: 14px; border-radius: 50%; border: 1px solid var(--color-espresso); vertical-align: middle; }
        .readiness.green { background: var(--color-sage); } .readiness.yellow { background: #E3C567; } .readiness.red { background: var(--color-terracotta); } .readiness.unplanned { background: transparent; border: 2px dashed var(--color-slate); }
        .stepper { display: flex; align-items: center; gap: var(--space-xs); }
        .stepper form { margin: 0; }
        .stepper output { min-width: 2.5ch; text-align: center; font: var(--font-data); display: inline-block; }
        .stepper output.bump { animation: bump var(--spring-bouncy); }
        @keyframes bump { 50% { transform: scale(1.15); } }
        button, .button { font: 700 19px/1.2 \(TypeStyle.body.fontStack); border: 0; border-radius: var(--radius-subtle); min-height: 48px; min-width: 48px;
                          padding: var(--space-sm) var(--space-lg); cursor: pointer; text-decoration: none; display: inline-flex; align-items: center; justify-content: center; }
        .primary { background: var(--color-terracotta); color: #fff; box-shadow: var(--shadow-subtle); }
        .primary:hover { background: var(--color-terracotta); filter: brightness(0.9); }  /* darker, so white text keeps its contrast */
        .secondary { background: var(--color-parchment); color: var(--color-espresso); }
        .danger { background: var(--color-cream); color: var(--color-espresso); border: 2px solid var(--color-terracotta); }
        .round { border-radius: 50%; padding: 0; background: var(--color-parchment); color: var(--color-espresso); }
        form.stack { display: grid; gap: var(--space-md); }
        fieldset { border: 0; margin: 0 0 var(--space-lg); padding: var(--space-lg); background: var(--color-parchment); border-radius: var(--radius-card); display: grid; gap: var(--space-md); }
        legend { font: var(--font-form-section-header); padding: 0; margin-bottom: var(--space-sm); float: left; width: 100%; }
        label { display: grid; gap: var(--space-xs); font: var(--font-subheadline); color: var(--color-walnut); }
        label.check { display: flex; align-items: center; gap: var(--space-sm); }
        input, select, textarea { font: var(--font-body); color: var(--color-espresso); background: var(--color-cream); border: 1px solid var(--color-slate);
                                  border-radius: var(--radius-subtle); padding: var(--space-sm) var(--space-md); min-height: 48px; width: 100%; }
        input[type=checkbox] { width: 24px; min-height: 24px; height: 24px; }
        .error { color: #8A2F12; font: var(--font-subheadline); font-weight: 600; }
        /* Kept on the device until the network is back (app.js): marked, not hidden. */
        .pending { border-left: 3px dashed var(--color-terracotta); }
        .flash { background: var(--color-terracotta-muted); color: var(--color-espresso); padding: var(--space-md); border-radius: var(--radius-subtle); margin-bottom: var(--space-md); }
        .empty { text-align: center; padding: var(--space-xxxl) var(--space-lg); }
        .empty .icon { font-size: 48px; }
        .empty h2 { margin: var(--space-md) 0 var(--space-xs); }
        .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(96px, 1fr)); gap: var(--space-sm); }
        .grid img { width: 100%; aspect-ratio: 1; object-fit: cover; border-radius: var(--radius-subtle); }
        .photo-tools { list-style: none; padding: 0; margin: var(--space-sm) 0; display: grid; gap: var(--space-sm); }
        .photo-tools li { display: flex; align-items: center; gap: var(--space-sm); flex-wrap: wrap; }
        .photo-tools img { width: 64px; height: 64px; object-fit: cover; border-radius: var(--radius-subtle); }
        .photo-tools button { min-height: 44px; }
        """
    }

    /// The photo and pattern viewers and the chart key.
    static var viewers: String {
        """
        .viewer { text-align: center; }
        .photo-stage { position: relative; display: inline-block; max-width: 100%; overflow: hidden; touch-action: none; user-select: none;
          -webkit-user-select: none; vertical-align: top; }
        .photo-stage img { display: block; max-width: 100%; max-height: 75vh; transform-origin: 0 0; cursor: zoom-in; -webkit-user-drag: none; }
        .photo-stage img.zoomed { cursor: grab; }
        .pager { display: flex; justify-content: space-between; align-items: center; margin: var(--space-md) 0; }
        .pattern-stage { position: relative; overflow: hidden; touch-action: none; user-select: none; -webkit-user-select: none;
                         background: var(--color-cream); border-radius: var(--radius-card); box-shadow: var(--shadow-subtle); cursor: grab; }
        .pattern-stage img { display: block; width: 100%; height: auto; transform-origin: 0 0; will-change: transform; -webkit-user-drag: none; }
        .pattern-stage p { padding: var(--space-xxl) var(--space-lg); text-align: center; margin: 0; }
        .zoom-controls { display: flex; align-items: center; justify-content: center; gap: var(--space-sm); margin: 0 0 var(--space-md); }
        .zoom-controls output { min-width: 4em; text-align: center; font: var(--font-data); }
        .pattern-thumbs { list-style: none; display: flex; gap: var(--space-sm); overflow-x: auto; padding: var(--space-sm) 0; margin: var(--space-md) 0 0; }
        .pattern-thumbs a { display: block; border-radius: var(--radius-subtle); }
        .pattern-thumbs a[aria-current="page"] { outline: 3px solid var(--color-terracotta); outline-offset: 2px; }
        .pattern-thumbs img, .pattern-thumbs .thumb-wait { display: flex; align-items: center; justify-content: center; width: 64px; height: 83px;
                         object-fit: contain; background: var(--color-cream); border-radius: var(--radius-subtle); color: var(--color-walnut); }
        .key-row { flex-wrap: wrap; align-items: flex-start; }
        .key-row > .key-take { flex: 1 1 100%; display: flex; align-items: center; gap: var(--space-sm); flex-wrap: wrap; }
        .key-row > .key-take .title { font-weight: 600; }
        .key-row > .key-detail { flex: 1 1 100%; }
        .key-row > label { flex: 0 1 10rem; }
        .key-row > .footnote { flex: 1 1 10rem; align-self: center; }
        /* A canvas's colours beside its photo: a colour's region lit up (the rest dimmed) on a canvas over the picture. */
        .palette-frame { position: relative; display: inline-block; max-width: 100%; line-height: 0; }
        .palette-frame img { display: block; max-width: 100%; max-height: 70vh; height: auto; border-radius: var(--radius-card); }
        .palette-overlay { position: absolute; inset: 0; width: 100%; height: 100%; pointer-events: none; image-rendering: pixelated; border-radius: var(--radius-card); }
        .palette-photo.spotting img { cursor: crosshair; outline: 3px dashed var(--color-terracotta); outline-offset: 2px; }
        .palette-row > label { flex: 1 1 14rem; }
        .palette-row.showing { outline: 3px solid var(--color-terracotta); outline-offset: -3px; }
        .pattern-thumb { flex: none; width: 48px; height: 62px; object-fit: cover; border-radius: var(--radius-subtle); background: var(--color-parchment); }
        .pattern-progress { margin: 0 0 var(--space-md); }
        .pattern-progress progress { width: 100%; height: 12px; accent-color: var(--color-terracotta); }
        """
    }

    /// What single pages add (facts, tables, sign-in, the shopping list), print and reduced motion.
    static var pages: String {
        """
        dl.facts { display: grid; grid-template-columns: auto 1fr; gap: var(--space-sm) var(--space-lg); margin: var(--space-lg) 0; }
        dl.facts dt { color: var(--color-walnut); } dl.facts dd { margin: 0; }
        .prewrap { white-space: pre-wrap; overflow-wrap: anywhere; }
        .project-group h2 { font-size: 1.1rem; margin: var(--space-lg) 0 var(--space-sm); }
        form.inline { display: inline-flex; margin: 0; }
        .picture-options { display: grid; gap: var(--space-sm); }
        .picture-option { display: flex; align-items: center; gap: var(--space-sm); min-height: 44px; }
        .picture-option img, .picture-option .thumb { width: 64px; height: 64px; object-fit: cover; border-radius: var(--radius-subtle); }
        ul.ways { list-style: none; padding: 0; margin: 0 0 var(--space-sm); }
        ul.ways li { display: flex; align-items: center; justify-content: space-between; gap: var(--space-sm); min-height: 44px; border-bottom: 1px solid var(--color-parchment); }
        ul.ways li button { min-height: 44px; }
        summary { cursor: pointer; padding: 10px 0; }  /* a target a finger can hit: 44 px tall (WCAG 2.5.8 asks 24) */
        details.edit { margin: var(--space-xs) 0 var(--space-md); }
        details.edit > summary { cursor: pointer; color: var(--color-walnut); padding: 10px 0; font-size: 0.95em; }
        details.edit .toolbar { margin: var(--space-sm) 0 0; }
        td details.edit { margin: var(--space-xs) 0 0; }
        a.edit-link { display: inline-block; color: var(--color-walnut); padding: 10px 0 2px; font-size: 0.95em; }
        table { width: 100%; border-collapse: collapse; }
        .actions { display: flex; flex-wrap: wrap; gap: var(--space-sm); margin-top: var(--space-md); }
        .actions form { margin: 0; }
        tr.unused td { color: var(--color-walnut); font-style: italic; }  /* set apart without losing contrast (clay on cream is under 4.5:1) */
        progress { width: 100%; height: 12px; accent-color: var(--color-terracotta); }
        .scroll { overflow-x: auto; }
        th, td { text-align: left; padding: var(--space-sm); border-bottom: 1px solid var(--color-parchment); }
        .signin { max-width: 420px; margin: var(--space-xxxl) auto; text-align: center; }
        .signin .tagline { font: var(--font-title3); color: var(--color-walnut); margin-bottom: var(--space-xl); }
        .apple { background: #000; color: #fff; width: 100%; }
        .signin button.provider { width: 100%; }
        .signin > form:not(.stack) { margin-bottom: var(--space-sm); }
        .signin > form.stack { margin-top: var(--space-lg); }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
        .print-only { display: none; }
        .shopping-brand { font-size: 1.1rem; margin: var(--space-lg) 0 var(--space-xs); }
        /* A line's buttons go under its text on a phone rather than squeezing it. */
        #shopping .row { flex-wrap: wrap; }
        #shopping .row .grow { flex: 1 1 14rem; }
        .row-actions { display: flex; flex-wrap: wrap; gap: var(--space-sm); align-items: center; margin-left: auto; }
        /* The shopping list on paper: no navigation or buttons, a box to tick and the swatch
           (printed in colour) per thread, grouped by brand. */
        @media print {
          nav, .tabbar, .sidebar, form, .no-print, .flash, details { display: none !important; }
          .print-only { display: inline-block; }
          body, main, .card { background: #fff !important; box-shadow: none !important; }
          main { margin: 0 !important; padding: 0 !important; max-width: none !important; }
          .swatch { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
          #shopping .row { break-inside: avoid; min-height: 0; padding: 4px 0; border-bottom: 1px solid #ccc; }
          .tick { width: 14px; height: 14px; border: 1.5px solid #000; margin-right: 8px; flex: none; }
        }
        @media (prefers-reduced-motion: reduce) { *, *::before, *::after { animation: none !important; transition: none !important; } }
        """
    }
}
