"""``kgspec check --html OUT.html``: one self-contained page (no network) with the run's summary
and, per diverging group, a timeline: one lane per member, its calls as marks coloured by
outcome, epochs and states along the lane, assignment changes and revocations, timers that
fired, coordinator moves, and the group's first departure highlighted with expected, observed
and the rule; conforming groups listed, each openable.

The page is data plus a small script: the report's facts are embedded as JSON (``</`` escaped,
so no string of a trace can close the script element) and the script builds the DOM with
``textContent`` only, so nothing a trace carries is ever parsed as HTML.
"""

from __future__ import annotations

import html
import json
from typing import Any, Final

from kgspec.commands.human import finding_lines, split_reasons
from kgspec.conformance.context import render_value
from kgspec.conformance.findings import Finding, Report, jsonable
from kgspec.conformance.timeline import GroupTimeline

MAX_CONFORMING: Final = 5000  # conforming groups listed by name; the rest are counted


def first_departure(f: Finding) -> dict[str, Any]:
    """The facts of a group's first finding as the page shows them."""
    names: dict[str, str] = f.context.get("topicNames") or {}
    head, why = split_reasons(f)
    out: dict[str, Any] = {"path": f.path, "line": f.line, "kind": f.kind, "field": f.field, "what": head,
                           "why": "; ".join(why) if why else None, "text": finding_lines(f),
                           "event": f.context.get("event") or {}}
    if f.kind in ("response-mismatch", "client") or f.expected is not None or f.observed is not None:
        out["expected"] = render_value(f.field, f.expected, names)
        out["observed"] = render_value(f.field, f.observed, names)
    return out


def page_data(report: Report, timelines: dict[str, GroupTimeline], firsts: dict[str, Finding],
              counts: dict[str, int]) -> dict[str, Any]:
    verdicts = [g.verdict for g in report.groups]
    drawn = []
    for g in report.groups:
        timeline = timelines.get(g.group_id)
        if g.group_id not in firsts:
            continue
        drawn.append({
            "groupId": g.group_id, "type": g.type, "verdict": g.verdict, "events": g.events,
            "findings": counts.get(g.group_id, 0), "first": first_departure(firsts[g.group_id]),
            "lanes": timeline.lanes() if timeline is not None else [],
            "marks": [m.to_json() for m in timeline.marks] if timeline is not None else [],
            "cut": timeline.cut if timeline is not None else 0,
        })
    quiet = [g.to_json() for g in report.groups if g.group_id not in firsts]
    trace_level = [first_departure(f) for f in report.findings if f.group_id is None][:50]
    return {
        "summary": {
            "inputs": [i.to_json() for i in report.inputs], "groups": len(report.groups),
            "conform": verdicts.count("conforms"), "diverge": verdicts.count("diverges"),
            "incomplete": verdicts.count("incomplete"), "findings": len(report.findings)},
        "drawn": drawn, "conforming": quiet[:MAX_CONFORMING], "conformingCut": max(0, len(quiet) - MAX_CONFORMING),
        "traceFindings": trace_level,
    }


def render_page(data: dict[str, Any]) -> str:
    payload = json.dumps(data, default=jsonable, separators=(",", ":")).replace("</", "<\\/")
    title = "kgspec check: " + ", ".join(i["path"] for i in data["summary"]["inputs"][:3])
    return (_PAGE.replace("@TITLE@", html.escape(title)).replace("@STYLE@", _STYLE)
            .replace("@DATA@", payload).replace("@SCRIPT@", _SCRIPT))


_PAGE: Final = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>@TITLE@</title><style>@STYLE@</style></head>
<body><main id="app"><h1>kgspec check</h1><p id="loading">This page needs JavaScript to draw the timelines.</p></main>
<script type="application/json" id="kgspec-data">@DATA@</script>
<script>@SCRIPT@</script></body></html>
"""

_STYLE: Final = """
body{font:14px/1.4 system-ui,sans-serif;margin:0;background:#fafafa;color:#222}
main{padding:16px 24px}h1{margin:0 0 8px}h2{margin:24px 0 4px;font-size:18px}
.summary{display:flex;gap:24px;flex-wrap:wrap;margin:8px 0}.summary div{background:#fff;border:1px solid #ddd;padding:6px 12px;border-radius:4px}
.count{font-size:20px;font-weight:600;display:block}
section.group{background:#fff;border:1px solid #ccc;border-radius:6px;padding:8px 16px 16px;margin:16px 0}
.first-departure{border-left:6px solid #c62828;background:#fff3f3;padding:8px 12px;margin:8px 0}
.first-departure dt{font-weight:600;float:left;clear:left;width:110px}.first-departure dd{margin:0 0 2px 120px;font-family:monospace;white-space:pre-wrap;word-break:break-all}
.expected{color:#1b5e20}.observed{color:#b71c1c}
.lanes{overflow-x:auto;border:1px solid #eee;background:#fff}
svg text{font:11px monospace}.lane-label{fill:#333}.note{fill:#555}
.legend span{display:inline-block;margin-right:16px}.dot{display:inline-block;width:10px;height:10px;border-radius:5px;margin-right:4px;vertical-align:middle}
table.marks{border-collapse:collapse;font:12px monospace;width:100%}table.marks td,table.marks th{border-bottom:1px solid #eee;padding:2px 6px;text-align:left;vertical-align:top;white-space:nowrap}
table.marks th{position:sticky;top:0;background:#f5f5f5}
.table-wrap{max-height:320px;overflow:auto;margin-top:8px;border:1px solid #eee}
tr.first{background:#ffcdd2;font-weight:600}tr.finding{background:#fff3f3}tr.error td.outcome{color:#e65100}tr.selected{outline:2px solid #1565c0}
details.conforming{margin-top:24px}details.conforming li{margin:2px 0}
"""

_SCRIPT: Final = r"""
(function(){
'use strict';
const data=JSON.parse(document.getElementById('kgspec-data').textContent);
const app=document.getElementById('app');
document.getElementById('loading').remove();
const COLORS={ok:'#2e7d32',error:'#ef6c00',finding:'#c62828',first:'#b71c1c',timer:'#757575',move:'#6a1b9a'};
const SVGNS='http://www.w3.org/2000/svg';
function el(tag,attrs,text){const e=document.createElement(tag);for(const k in attrs||{})e.setAttribute(k,attrs[k]);if(text!==undefined&&text!==null)e.textContent=String(text);return e;}
function sv(tag,attrs,text){const e=document.createElementNS(SVGNS,tag);for(const k in attrs||{})e.setAttribute(k,attrs[k]);if(text!==undefined&&text!==null)e.textContent=String(text);return e;}
function where(f){return f.path+':'+f.line;}
const s=data.summary;
const sum=el('div',{class:'summary',id:'summary'});
[['groups',s.groups],['conform',s.conform],['diverge',s.diverge],['incomplete',s.incomplete],['findings',s.findings],
 ['lines',s.inputs.reduce((a,i)=>a+i.lines,0)]].forEach(([k,v])=>{const d=el('div');d.appendChild(el('span',{class:'count'},v));d.appendChild(document.createTextNode(k));sum.appendChild(d);});
app.appendChild(sum);
app.appendChild(el('p',{class:'inputs'},'inputs: '+s.inputs.map(i=>i.path+' ('+i.lines+' lines)').join(', ')));
const legend=el('p',{class:'legend'});
[['ok','call answered'],['error','error answer'],['finding','finding'],['first','first departure'],['timer','timer fired'],['move','coordinator moved']].forEach(([k,t])=>{const sp=el('span');const d=el('span',{class:'dot'});d.style.background=COLORS[k];sp.appendChild(d);sp.appendChild(document.createTextNode(t));legend.appendChild(sp);});
if(data.drawn.length)app.appendChild(legend);
function firstPanel(f){
  const box=el('div',{class:'first-departure',id:'first-'+f.line});
  box.appendChild(el('strong',{},'First departure: '+where(f)+' — '+f.kind+(f.field?' ('+f.field+')':'')));
  const dl=el('dl');
  const ev=f.event||{};
  const rows=[['time',ev.time||(ev.tsMs!==undefined?'tsMs '+ev.tsMs:null)],['logged at',ev.loggedAt],['call',ev.api?(ev.api+(ev.apiVersion!==undefined?' v'+ev.apiVersion:'')):null],
    ['member',ev.memberId],['client',ev.clientId],['host',ev.clientHost],['instance',ev.instanceId],['what',f.what],
    ['expected',f.expected],['observed',f.observed],['rule',f.why||f.what]];
  rows.forEach(([k,v])=>{if(v===undefined||v===null)return;dl.appendChild(el('dt',{},k));dl.appendChild(el('dd',{class:k},v));});
  box.appendChild(dl);return box;
}
const multi=data.summary.inputs.length>1;
function timeline(g,section){
  const lanes=g.lanes, marks=g.marks;
  if(!marks.length){section.appendChild(el('p',{},'no calls of this group were recorded'));return;}
  const laneIndex=new Map(lanes.map((l,i)=>[l,i]));
  const step=Math.max(8,Math.min(28,Math.floor(1400/marks.length)));
  const left=190, top=44, laneH=54;
  const width=left+marks.length*step+40, height=top+lanes.length*laneH+20;
  const svg=sv('svg',{width:width,height:height,class:'timeline','data-group':g.groupId});
  lanes.forEach((l,i)=>{const y=top+i*laneH;
    svg.appendChild(sv('line',{x1:left-10,x2:width-10,y1:y,y2:y,stroke:'#ddd'}));
    const t=sv('text',{x:6,y:y+4,class:'lane-label'},l===''?'(group)':(l.length>24?l.slice(0,23)+'…':l));
    t.appendChild(sv('title',{},l===''?'the group: timers of no member, coordinator moves':l));svg.appendChild(t);});
  const last=new Map();
  let tickEvery=Math.max(1,Math.round(120/step));
  marks.forEach((m,i)=>{
    const x=left+i*step;
    if(i%tickEvery===0&&m.time){svg.appendChild(sv('text',{x:x,y:12,class:'note'},m.time.slice(11,23)));}
    if(m.kind==='move'){svg.appendChild(sv('line',{x1:x,x2:x,y1:top-14,y2:height-8,stroke:COLORS.move,'stroke-dasharray':'4 3'}));
      svg.appendChild(sv('text',{x:x+3,y:top-16,class:'note'},m.label));return;}
    const lane=laneIndex.has(m.lane)?laneIndex.get(m.lane):0, y=top+lane*laneH;
    const prev=last.get(m.lane)||{};
    const stateText=(m.epoch!==undefined?'e'+m.epoch:'')+(m.state&&m.state!=='-'?' '+m.state:'');
    let labelX=prev.labelX===undefined?-1e9:prev.labelX, row=prev.row||0;
    if(stateText&&stateText!==prev.stateText){row=(x-labelX<8*(prev.labelLen||0)+6)?1-row:0;labelX=x;
      svg.appendChild(sv('text',{x:x-3,y:y-9-row*11,class:'note state'},stateText));}
    if(m.assigned!==undefined&&prev.assigned!==undefined&&m.assigned!==prev.assigned){
      const d=sv('path',{d:`M${x} ${y+9} l4 6 l-8 0 z`,fill:'#1565c0',class:'assignment-change'});d.appendChild(sv('title',{},'assigned '+m.assigned));svg.appendChild(d);}
    if(m.revoking&&m.revoking!=='-'){const r=sv('line',{x1:x-5,x2:x+5,y1:y+17,y2:y+17,stroke:COLORS.error,'stroke-width':3,class:'revoking'});r.appendChild(sv('title',{},'revoking '+m.revoking));svg.appendChild(r);}
    let shape;
    if(m.kind==='timer'){shape=sv('rect',{x:x-4,y:y-4,width:8,height:8,fill:COLORS.timer,class:'mark timer'});}
    else{const first=m.outcome==='first';
      if(first){svg.appendChild(sv('circle',{cx:x,cy:y,r:12,fill:'none',stroke:COLORS.first,'stroke-width':2}));}
      shape=sv('circle',{cx:x,cy:y,r:first?8:5,fill:COLORS[m.outcome]||COLORS.ok,class:'mark '+m.outcome});}
    shape.setAttribute('data-index',i);
    shape.appendChild(sv('title',{},[m.path+':'+m.line,m.time||'',m.label,m.error||'',m.epoch!==undefined?'epoch '+m.epoch:'',m.state||'',m.assigned?'assigned '+m.assigned:'',m.revoking&&m.revoking!=='-'?'revoking '+m.revoking:''].filter(Boolean).join('\n')));
    shape.addEventListener('click',()=>select(section,i));
    svg.appendChild(shape);
    last.set(m.lane,{stateText:stateText||prev.stateText,assigned:m.assigned!==undefined?m.assigned:prev.assigned,
      labelX:labelX,row:row,labelLen:labelX===x?stateText.length:prev.labelLen});
  });
  const wrap=el('div',{class:'lanes'});wrap.appendChild(svg);section.appendChild(wrap);
  if(g.cut)section.appendChild(el('p',{class:'note'},g.cut+' earlier or later mark(s) not drawn (the '+marks.length+' around the first departure are)'));
  const tw=el('div',{class:'table-wrap'});const table=el('table',{class:'marks'});
  const head=el('tr');['line','time','member','call','outcome','epoch','state','assigned','revoking'].forEach(h=>head.appendChild(el('th',{},h)));table.appendChild(head);
  marks.forEach((m,i)=>{const tr=el('tr',{class:m.outcome+' '+m.kind,'data-index':i});
    [multi?where(m):m.line,m.time||m.ts,m.lane||'(group)',m.label,m.error||m.outcome,m.epoch,m.state,m.assigned,m.revoking].forEach((v,j)=>tr.appendChild(el('td',{class:j===4?'outcome':''},v===undefined?'':v)));
    tr.addEventListener('click',()=>select(section,i));table.appendChild(tr);});
  tw.appendChild(table);section.appendChild(tw);
  const firstIndex=marks.findIndex(m=>m.outcome==='first');
  if(firstIndex>=0){const row=table.querySelector('tr[data-index="'+firstIndex+'"]');tw.scrollTop=Math.max(0,row.offsetTop-60);
    wrap.scrollLeft=Math.max(0,left+firstIndex*step-wrap.clientWidth/2);}
}
function select(section,i){section.querySelectorAll('tr.selected').forEach(r=>r.classList.remove('selected'));
  const row=section.querySelector('tr[data-index="'+i+'"]');if(row){row.classList.add('selected');row.scrollIntoView({block:'nearest'});}}
if(data.drawn.length)app.appendChild(el('h2',{},'Groups with findings ('+data.drawn.length+')'));
data.drawn.forEach((g,k)=>{
  const section=el('section',{class:'group diverging',id:'group-'+k,'data-group':g.groupId});
  section.appendChild(el('h2',{},'group '+g.groupId));
  section.appendChild(el('p',{class:'verdict'},g.type+' group, '+g.verdict+': '+g.events+' event(s), '+g.findings+' finding(s)'));
  section.appendChild(firstPanel(g.first));
  timeline(g,section);app.appendChild(section);});
if(data.traceFindings.length){const sec=el('section',{class:'group trace'});sec.appendChild(el('h2',{},'Findings of no group ('+data.traceFindings.length+' shown)'));
  data.traceFindings.forEach(f=>sec.appendChild(el('pre',{},f.text.join('\n'))));app.appendChild(sec);}
const conf=el('details',{class:'conforming',id:'conforming'});
conf.appendChild(el('summary',{},(data.conforming.length+data.conformingCut)+' group(s) without findings'));
const ul=el('ul');data.conforming.forEach(g=>{const li=el('li');const d=el('details',{'data-group':g.groupId});d.appendChild(el('summary',{},g.groupId));
  d.appendChild(el('p',{},g.type+' group, '+g.verdict+', '+g.events+' event(s) checked, no finding'));li.appendChild(d);ul.appendChild(li);});
conf.appendChild(ul);if(data.conformingCut)conf.appendChild(el('p',{},'... and '+data.conformingCut+' more (JSON report: groups)'));
app.appendChild(conf);
document.body.setAttribute('data-rendered','yes');
})();
"""
