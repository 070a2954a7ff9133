/**
 * The graph webview's page body: header, findings, legend, graph area and timeline (ids the
 * webview script (webview/main.ts) looks up). Shared by the panel's page (graph-html.ts) and the
 * webview bench's page (bench/webview.ts), so both hold the same elements. Static markup, no trace
 * text (that is set by the script with textContent). No `vscode` import.
 */
export const GRAPH_BODY = `<header>
<span id="title">Loading trace…</span><span id="summary"></span>
<vscode-textfield id="search" placeholder="Filter events (Ctrl+F)" aria-label="Filter events: Enter goes to the next match, Esc clears the filter and goes back to the graph"></vscode-textfield>
<span id="matches" aria-live="polite"></span>
<span id="file-gone" role="status" hidden title="The trace file was deleted, moved or renamed on disk. The graph shows what was read before; it is read again if the file comes back.">⚠ file deleted or moved: showing what was read</span>
<button id="follow-run" class="tool live" hidden aria-pressed="false" title="The run is still being written. Click to keep its newest events in view as they arrive (the view otherwise stays where you are)">● in progress</button>
<button id="lock" class="tool" hidden title="This panel follows the active trace editor; click to keep it on this trace">Lock</button>
<button id="mode" class="tool" title="x is time (idle gaps shortened); click for event order (T)">x: time</button>
<button id="zoom-sel" class="tool" title="Zoom to the selected event (Z); Esc goes back">Zoom to selection</button>
<button id="fit" class="tool" title="Show the whole trace (F)">Fit</button>
<button id="export-png" class="tool" title="Save this view as a PNG image">PNG</button>
<button id="export-svg" class="tool" title="Save this view as an SVG image">SVG</button>
</header>
<section id="run" aria-label="Run summary" hidden></section>
<nav id="findings" aria-label="Analysis findings" hidden></nav>
<div id="legend" aria-label="Legend"></div>
<div id="main">
<div id="canvas" tabindex="0" aria-label="Trace graph: arrow keys step through events, F fits">
  <div id="corner"></div>
  <div id="axis" aria-hidden="true"></div>
  <div id="lanes" aria-label="Lanes"></div>
  <div id="stage"><div id="gaps"></div><div id="loading" role="status"><div class="bar"></div><span>Reading and analysing the trace… <span id="elapsed"></span></span></div><div id="graph" aria-label="Trace event graph"></div><div id="later" hidden></div><div id="focus" hidden></div><div id="cursor" hidden></div><div id="tooltip" hidden></div></div>
  <div id="overview-label">whole run</div>
  <canvas id="minimap" aria-label="Minimap of the whole trace: click to go there"></canvas>
</div>
<aside id="details"></aside>
</div>
<footer id="timeline" aria-label="Timeline">
<button id="first" class="tool" title="First event (Home)">|◀</button>
<button id="prev" class="tool" title="Previous event (←)">◀</button>
<button id="play" class="tool" title="Play (Space)">Play</button>
<button id="next" class="tool" title="Next event (→)">▶</button>
<button id="last" class="tool" title="Last event (End)">▶|</button>
<span id="counter" aria-live="polite">– / –</span>
<span id="clock"></span>
<select id="speed" title="Events per second while playing" aria-label="Speed"><option value="1">1/s</option><option value="4" selected>4/s</option><option value="16">16/s</option><option value="64">64/s</option></select>
<button id="prev-agent" class="tool" title="Previous event of this agent (Shift+←)">◀ agent</button>
<button id="next-agent" class="tool" title="Next event of this agent (Shift+→)">agent ▶</button>
<button id="next-stop" class="tool" title="Next stop (S)">stop ▶</button>
<button id="next-finding" class="tool" title="Next event with a finding (N)">finding ▶</button>
<label title="Stepping shows the event's line in the trace editor (without leaving the graph)"><input type="checkbox" id="follow"> follow in editor</label>
</footer>`;
