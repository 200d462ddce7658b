// Times the web page's first page in headless Chromium: RUNS fresh
// loads of CAIRN_UI_URL, each from navigation start to the moment the
// first page of memories is in the list (the page is interactive then:
// its script has run and its handlers are set). The moment is taken in
// the page by a MutationObserver installed before the page's own
// scripts run, not when the driver next polls the page (which adds the
// driver's own round trips). Prints the median and the worst.
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const { chromium } = require(process.env.CAIRN_TEST_PLAYWRIGHT);
const runs = Number(process.env.RUNS || 20);
const browser = await chromium.launch({ executablePath: process.env.CAIRN_TEST_CHROMIUM, args: ['--no-sandbox'] });
const times = [];
try {
  for (let i = 0; i < runs + 2; i++) {
    const ctx = await browser.newContext();
    await ctx.addInitScript(() => {
      new MutationObserver((_, obs) => {
        if (document.querySelector('#list li[data-id]')) { window.__listedAt = performance.now(); obs.disconnect(); }
      }).observe(document, { childList: true, subtree: true });
    });
    const page = await ctx.newPage();
    await page.goto(process.env.CAIRN_UI_URL, { waitUntil: 'commit' });
    await page.waitForSelector('#list li[data-id]');
    const t = await page.evaluate(() => window.__listedAt);
    const n = await page.evaluate(() => document.querySelectorAll('#list li[data-id]').length);
    if (i >= 2) times.push(t); // two warm-up loads
    if (n !== 50) throw new Error('the first page shows ' + n + ' memories, not 50');
    await ctx.close();
  }
} finally {
  await browser.close();
}
times.sort((a, b) => a - b);
console.log(`first page to interactive, ${runs} loads: median ${times[Math.floor(runs / 2)].toFixed(0)} ms, worst ${times[runs - 1].toFixed(0)} ms`);
