//! The page's own style sheet and script, inline in every page so that it opens offline and fetches nothing.

/// The page on a screen, and on paper (`@media print`): there every node shows open whatever the reader left
/// closed, with the words, without the buttons, in the colours the screen has. The heat map keeps to a page
/// 1280 pixels wide: narrow count cells, a leaf's words and a matched label cut with an ellipsis (whole in the
/// cell's title).
pub(super) const STYLE: &str = "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;\
max-width:1200px;padding:16px 24px;color:#1d1d1f;background:#fff}h1{font-size:22px;margin:0 0 8px}\
h2{font-size:17px;margin:24px 0 8px;border-bottom:1px solid #ddd}dl.facts{display:grid;\
grid-template-columns:max-content 1fr;gap:2px 16px;margin:0}dl.facts dt{color:#666}dl.facts dd{margin:0}\
.chip{display:inline-block;padding:0 6px;margin:1px 4px 1px 0;border-radius:3px;font-size:12px}\
table{border-collapse:collapse}th,td{padding:2px 6px;text-align:right}th{font-weight:600}td.l,th.l{text-align:left}\
.figures td{border-bottom:1px solid #eee}.scroll{overflow-x:auto}.heat{font-size:12px}.heat th,.heat td{padding:2px 3px}\
.heat td.c{min-width:22px;padding:2px 1px;text-align:center;border:1px solid #fff}\
.heat td.leafname,.heat td.matched{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}\
.heat td.leafname{max-width:230px}.heat td.matched{max-width:130px}.heat .hw{color:#555;margin-left:4px}\
.heat th.lab{font-size:11px;font-weight:normal;white-space:nowrap;writing-mode:vertical-rl;\
transform:rotate(180deg);text-align:left;padding:4px 2px}\
details.node{margin:2px 0 2px 0;border-left:2px solid #d0d7de;padding-left:10px}\
details.node>summary{cursor:pointer;padding:2px 0}details.flat{border-left-style:dashed}\
.level{color:#666;font-size:11px;margin-right:6px}.nid{color:#0969da;font-weight:600}.nname{font-weight:600}\
.unnamed{font-weight:normal;font-style:italic;color:#555}.named-words{font-weight:normal;color:#555}\
.meta{color:#666;font-size:12px;margin-left:8px}\
.leaf{background:#eef6ee;color:#1a7f37;border-radius:3px;padding:0 4px;font-size:11px;margin-left:6px}\
.body{margin:2px 0 6px 4px}.words{margin:2px 0}.words b{color:#555;font-weight:600;margin-right:6px}\
.bar{display:flex;height:12px;width:100%;max-width:520px;border-radius:2px;overflow:hidden;background:#eee;\
margin:4px 0}.bar span{display:block;height:100%}.mix{font-size:12px;color:#555}ol.docs{margin:2px 0 4px;\
padding-left:22px}ol.docs li{font-size:13px}.doc-id{color:#888;font-size:11px;margin-left:6px}\
button{font:inherit;margin-right:6px}.note{color:#666;font-size:12px}\
@media print{*{-webkit-print-color-adjust:exact;print-color-adjust:exact}\
body{max-width:none;padding:0;font-size:11px}button{display:none}.scroll{overflow:visible}\
.heat{font-size:9px}.heat td.c{min-width:14px}.heat td.leafname{max-width:160px}\
details.node::details-content{content-visibility:visible;display:contents}\
details.node>summary{break-after:avoid}li,.words,.bar{break-inside:avoid}}";

/// Expand or collapse every node, open every node before printing and restore them after, and open a node's
/// ancestors when a link (a heat-map row) leads to it. Its last step marks the body, so that a test in a real
/// browser can see that the script ran to its end.
pub(super) const SCRIPT: &str = "(function(){\
function nodes(){return document.querySelectorAll('details.node');}\
function all(open){nodes().forEach(function(d){d.open=open;});}\
document.getElementById('expand-all').addEventListener('click',function(){all(true);});\
document.getElementById('collapse-all').addEventListener('click',function(){all(false);});\
var before=null;\
window.addEventListener('beforeprint',function(){before=[];nodes().forEach(function(d){before.push(d.open);d.open=true;});});\
window.addEventListener('afterprint',function(){if(!before)return;var b=before;before=null;\
nodes().forEach(function(d,i){d.open=b[i];});});\
function reveal(id){var e=document.getElementById(id);if(!e)return;\
for(var p=e;p;p=p.parentElement){if(p.tagName==='DETAILS')p.open=true;}e.scrollIntoView({block:'start'});}\
document.querySelectorAll('a.to-node').forEach(function(a){a.addEventListener('click',function(ev){\
ev.preventDefault();var id=a.getAttribute('href').slice(1);reveal(id);history.replaceState(null,'','#'+id);});});\
if(location.hash)reveal(decodeURIComponent(location.hash.slice(1)));\
document.body.setAttribute('data-script','ran');\
})();";
