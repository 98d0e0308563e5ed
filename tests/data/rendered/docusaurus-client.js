// What a client-rendered Docusaurus build does on load, in miniature: the route's
// content is not in the HTML; the bundle writes it into #__docusaurus.
(function () {
  var root = document.getElementById("__docusaurus");
  root.innerHTML = [
    '<div class="main-wrapper mainWrapper_z2l0"><div class="docsWrapper_hBAB">',
    '<main class="docMainContainer_TBSr"><div class="container padding-top--md padding-bottom--lg">',
    '<article><nav class="theme-doc-breadcrumbs" aria-label="Breadcrumbs"><ul class="breadcrumbs">',
    '<li class="breadcrumbs__item"><a class="breadcrumbs__link" href="/docs/intro">Docs</a></li>',
    '<li class="breadcrumbs__item breadcrumbs__item--active"><span class="breadcrumbs__link">Routing</span></li>',
    '</ul></nav>',
    '<div class="theme-doc-markdown markdown"><header><h1>Routing</h1></header>',
    '<p>Tidewater routes each request to the least loaded inference worker.</p>',
    '<p>Workers report their queue depth every 250 milliseconds; a worker that misses three reports is taken out of rotation.</p>',
    '<div class="theme-admonition theme-admonition-tip admonition_xJq3 alert alert--success"><div class="admonitionHeading_Gvgb">tip</div>',
    '<div class="admonitionContent_BuS1"><p>Pin a model to a worker group with the <code>pool</code> label.</p></div></div>',
    '<table><thead><tr><th>Policy</th><th>Picks</th></tr></thead>',
    '<tbody><tr><td>least-loaded</td><td>the worker with the shortest queue</td></tr>',
    '<tr><td>round-robin</td><td>each worker in turn</td></tr></tbody></table>',
    '</div></article></div></main></div></div>'
  ].join("");
  document.documentElement.setAttribute("data-rendered", "yes");
})();
