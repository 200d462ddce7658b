// The web page in headless Chromium, driven by playwright-core, against
// a running `cairn serve` (TestWebPageInChromium starts it). Each step
// does what a user does in the page and checks the outcome through the
// CLI or the API; a failed check throws, and the script exits 1.
//
// Environment: CAIRN_UI_URL (the page), CAIRN_BIN, CAIRN_DB,
// CAIRN_PROJECT (for the CLI), CAIRN_TEST_CHROMIUM (the browser),
// CAIRN_TEST_PLAYWRIGHT (playwright-core's folder), CAIRN_UI_SHOTS (where
// screenshots go).
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { writeFileSync, utimesSync } from 'node:fs';

const require = createRequire(import.meta.url);
const { chromium } = require(process.env.CAIRN_TEST_PLAYWRIGHT);
const url = process.env.CAIRN_UI_URL;
const shots = process.env.CAIRN_UI_SHOTS;
const project = process.env.CAIRN_PROJECT;

function cli(...args) {
  return execFileSync(process.env.CAIRN_BIN, ['--db', process.env.CAIRN_DB, '--project', project, ...args], { encoding: 'utf8' });
}
function check(ok, what) {
  if (!ok) throw new Error('check failed: ' + what);
  console.log('ok: ' + what);
}
async function apiGet(path) {
  const res = await fetch(url + 'api/projects/' + encodeURIComponent(project) + path);
  return { status: res.status, body: res.status === 200 ? await res.json() : null };
}

const browser = await chromium.launch({ executablePath: process.env.CAIRN_TEST_CHROMIUM, args: ['--no-sandbox'] });
const problems = [];
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  page.on('console', (m) => { if (m.type() === 'error') problems.push('console error: ' + m.text()); });
  page.on('dialog', (d) => { problems.push('a dialog opened: ' + d.message()); d.dismiss(); });
  page.on('request', (r) => { if (!r.url().startsWith(url) && !r.url().startsWith('data:') && !r.url().startsWith('blob:')) problems.push('a request left the server: ' + r.url()); });

  await page.goto(url);
  await page.waitForSelector('#list li');
  check(!(await page.isVisible('#toast')), 'no toast shows before a message comes');
  check(await page.inputValue('#project') === project, 'the page opens serve\'s project');
  const firstLists = await page.evaluate(() => performance.getEntriesByType('resource')
    .filter((e) => e.name.includes('/memories?sort=created&global=false&limit=51&offset=0&skip_total=true')).length);
  check(firstLists === 1, 'the first list is fetched once, by the page\'s preload (' + firstLists + ' requests)');
  await page.waitForFunction(() => document.getElementById('live-state').textContent === 'live');

  // Create a memory in the page; the CLI finds it.
  await page.keyboard.press('n');
  await page.fill('#new-form [name=title]', 'Zebra quartz convention');
  await page.fill('#new-form [name=content]', 'Zebra quartz: name test helpers after what they check.');
  await page.fill('#new-form [name=type]', 'convention');
  await page.click('#new-form button[type=submit]');
  await page.waitForSelector('#memory-content');
  const found = JSON.parse(cli('search', 'zebra quartz', '--json'));
  check(found.length > 0 && found[0].title === 'Zebra quartz convention', 'a memory made in the page is found by cairn search');
  const madeID = found[0].id;

  // Search as you type marks the matched words.
  await page.keyboard.press('Escape');
  await page.click('body');
  await page.keyboard.press('/');
  check(await page.evaluate(() => document.activeElement.id) === 'q', '/ focuses the search box');
  await page.keyboard.type('zebra');
  await page.waitForSelector('#list li mark');
  check((await page.textContent('#list li mark')).toLowerCase() === 'zebra', 'the matched word is marked');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');

  // A memory added with the CLI appears live in the feed.
  await page.goto(url + '#live');
  await page.waitForFunction(() => document.getElementById('live-state').textContent === 'live');
  const liveID = cli('add', '--type', 'pitfall', '--title', 'Live feed check', 'The feed shows what the CLI adds, as it adds it.').trim();
  await page.waitForSelector('#feed li[data-action=created] >> text=Live feed check', { timeout: 10000 });
  check(true, 'a memory added with the CLI appears in the live feed (' + liveID + ')');
  await page.screenshot({ path: join(shots, 'live.png') });

  // A hostile memory stays text.
  const hostile = '<script>window.__pwned = 1</script></div><img src=x onerror="window.__pwned = 2">' +
    '[click me](javascript:window.__pwned=3) **bold** <a href="http://example.com/">link</a>';
  const hostileID = cli('add', '--type', 'pitfall', '--title', '</div><b>hostile title</b>', hostile).trim();
  await page.goto(url + '#memories');
  await page.fill('#q', 'hostile click bold');
  await page.waitForSelector('#list li[data-id="' + hostileID + '"]');
  await page.click('#list li[data-id="' + hostileID + '"] button');
  await page.waitForSelector('#detail[data-id="' + hostileID + '"] #memory-content'); // not the memory shown before
  check(await page.textContent('#memory-content') === hostile, 'the hostile content is shown as the text it is');
  check(await page.textContent('#detail h2') === '</div><b>hostile title</b>', 'the hostile title is shown as text');
  const injected = await page.evaluate(() => ({
    pwned: window.__pwned,
    nodes: document.querySelectorAll('main script, main img, #detail a, #list a, main b').length,
  }));
  check(injected.pwned === undefined && injected.nodes === 0, 'no script ran and no element came from memory text');
  await page.screenshot({ path: join(shots, 'hostile.png') });

  // Edit, pin, delete and undo, on the memory made in the page.
  await page.fill('#q', '');
  await page.fill('#q', 'zebra');
  await page.click('#list li[data-id="' + madeID + '"] button');
  await page.waitForSelector('#detail[data-id="' + madeID + '"] #memory-content');
  await page.keyboard.press('e');
  await page.fill('#detail form [name=title]', 'Zebra quartz convention, edited');
  await page.fill('#detail form [name=tags]', 'team:tests, ui');
  await page.click('#detail form button[type=submit]');
  await page.waitForSelector('#detail h2 >> text=Zebra quartz convention, edited');
  const shown = JSON.parse(cli('show', '--json', madeID));
  check(shown.title === 'Zebra quartz convention, edited' && shown.tags.includes('team:tests'), 'an edit in the page is stored');

  await page.click('#detail button:text-is("Pin")');
  await page.waitForSelector('#detail button:text-is("Unpin")');
  check(JSON.parse(cli('show', '--json', madeID)).pinned === true, 'pin in the page pins the memory');
  await page.screenshot({ path: join(shots, 'memories.png') });

  await page.click('#detail button:text-is("Delete")');
  await page.waitForSelector('#confirm[open]');
  await page.click('#confirm-ok');
  await page.waitForSelector('#toast-action:text-is("Undo")');
  check((await apiGet('/memories/' + madeID)).status === 404, 'delete after confirmation removes the memory');
  await page.click('#toast-action');
  await page.waitForSelector('#detail[data-id="' + madeID + '"] #memory-content');
  const back = await apiGet('/memories/' + madeID);
  check(back.status === 200 && back.body.title === 'Zebra quartz convention, edited' && back.body.pinned === true,
    'undo brings the memory back with its id, title and pin');
  check(!(await page.isVisible('#toast-action')), 'the undo button is gone once it was used');

  // Filters by agent, source, staleness and expiry. serve's folder (the
  // working directory) holds the file a memory refers to; the file
  // changes after the memory is written, so the memory may be stale.
  writeFileSync('watched.go', 'package watched\n');
  const staleID = cli('add', '--type', 'pitfall', '--files', 'watched.go', '--agent', 'filteragent', '--source', 'extracted',
    '--title', 'Watched file memory', 'The watched file decides the retry policy.').trim();
  const future = new Date(Date.now() + 3600e3);
  utimesSync('watched.go', future, future);
  const soonID = cli('add', '--type', 'note', '--ttl', '2d', '--title', 'Expires soon memory', 'A note that expires in two days.').trim();
  await page.goto(url + '#memories');
  await page.fill('#q', '');
  await page.evaluate(() => { document.querySelector('#filters details').open = true; });
  const listed = () => page.$$eval('#list li[data-id]', (lis) => lis.map((li) => li.dataset.id));
  const setFilter = async (id, value) => {
    if (await page.$eval(id, (e) => e.tagName) === 'SELECT') {
      await page.selectOption(id, value);
    } else {
      await page.fill(id, value);
      await page.press(id, 'Enter');
    }
  };
  const filterTo = async (id, value, what, want) => {
    await setFilter(id, value);
    await page.waitForFunction((w) => {
      const ids = [...document.querySelectorAll('#list li[data-id]')].map((li) => li.dataset.id);
      return ids.length === w.length && w.every((x) => ids.includes(x));
    }, want, { timeout: 5000 }).catch(async () => { throw new Error('filter ' + what + ' lists ' + (await listed()) + ', want ' + want); });
    check(true, 'the filter ' + what + ' lists only ' + want.join(', '));
    await setFilter(id, '');
  };
  await filterTo('#f-agent', 'filteragent', 'agent', [staleID]);
  await filterTo('#f-source', 'extracted', 'source', [staleID]);
  await filterTo('#f-stale', 'stale', 'possibly stale', [staleID]);
  await filterTo('#f-expiry', 'soon', 'expiring within 7 days', [soonID]);
  await page.waitForSelector('#list li[data-id="' + staleID + '"] .stale');
  check(true, 'the list marks the possibly stale memory');

  // The supersede chain, both ways, on the middle memory of three.
  const oldID = cli('add', '--type', 'decision', '--title', 'Chain first', 'Retries: none.').trim();
  const midID = cli('add', '--type', 'decision', '--supersedes', oldID, '--title', 'Chain middle', 'Retries: three.').trim();
  const newID = cli('add', '--type', 'decision', '--supersedes', midID, '--title', 'Chain last', 'Retries: five, with backoff.').trim();
  await page.fill('#q', 'chain middle');
  await page.click('#list li[data-id="' + midID + '"] button');
  await page.waitForSelector('.chain-list li[data-role="superseded by this one"]');
  const roles = await page.$$eval('.chain-list li', (lis) => lis.map((li) => (li.dataset.role || 'self') + ':' + li.textContent));
  check(roles.length === 3 && roles[0].startsWith('superseded by this one:') && roles[0].includes('Chain first') &&
    roles[1].startsWith('self:') && roles[2].startsWith('supersedes this one:') && roles[2].includes('Chain last'),
    'one memory shows what it supersedes and what supersedes it (' + roles.join(' | ') + ')');
  await page.screenshot({ path: join(shots, 'chain.png') });
  await page.click('.chain-list li[data-role="supersedes this one"] button');
  await page.waitForSelector('#detail[data-id="' + newID + '"]');
  check(true, 'a memory of the chain opens from it');
  await page.fill('#q', '');

  // The context preview is the block `cairn context --explain` prints.
  await page.goto(url + '#context');
  const prompt = 'what does the feed show when the CLI adds a memory? zebra';
  await page.fill('#c-prompt', prompt);
  await page.fill('#c-budget', '600');
  await page.click('#context-form button[type=submit]');
  await page.waitForFunction(() => document.getElementById('c-block').textContent !== '');
  const block = await page.textContent('#c-block');
  const explain = await page.textContent('#c-explain');
  const want = cli('context', '--prompt', prompt, '--budget', '600', '--explain');
  check(block + (block.endsWith('\n') ? '' : '\n') + explain === want, 'the context preview equals cairn context --explain');
  check(explain.length > 0 && block.includes('Live feed check'), 'the preview explains a block that holds the relevant memory');
  await page.screenshot({ path: join(shots, 'context.png'), fullPage: true });

  // Housekeeping: stats, charts and a cleanup preview.
  await page.goto(url + '#housekeeping');
  await page.waitForSelector('#h-bytype li');
  await page.waitForSelector('#h-weeks .week .seg');
  const weeks = await page.$$eval('#h-weeks .week', (ws) => ws.map((w) => w.querySelector('.week-n').textContent));
  check(weeks.length === 12 && Number(weeks[11]) >= 8, 'the chart shows 12 weeks, this one with what was created (' + weeks.join(',') + ')');
  check((await page.textContent('#h-legend')).includes('decision'), 'the chart names its types');
  await page.waitForSelector('#h-stale li button');
  check((await page.textContent('#h-stale')).includes('Watched file memory'), 'housekeeping lists the possibly stale memory');
  check((await page.textContent('#h-soon')).includes('Expires soon memory'), 'housekeeping lists the memory expiring soon');
  check(/\(\d+\)/.test(await page.textContent('#h-never-n')), 'housekeeping counts the memories never used');
  await page.click('#cleanup-preview');
  await page.waitForFunction(() => document.getElementById('cleanup-out').textContent.startsWith('{'));
  check(!(await page.isDisabled('#cleanup-apply')), 'a cleanup preview offers to apply it');
  await page.screenshot({ path: join(shots, 'housekeeping.png'), fullPage: true });

  // Projects: every project with memories; choosing one opens it.
  cli('--project', 'otherproj', 'add', '--type', 'note', '--title', 'Other project memory', 'Only the other project has this.');
  await page.keyboard.press('5');
  await page.waitForSelector('#projects li[data-project="otherproj"]');
  const projects = await page.$$eval('#projects li[data-project]', (lis) => lis.map((li) => li.dataset.project));
  check(projects.join(',') === [project, 'otherproj'].sort().join(','), 'the projects list names both projects (' + projects + ')');
  check((await page.textContent('#projects li[data-project="otherproj"]')).includes('1 memory ·'), 'the projects list counts each one\'s memories');
  await page.focus('#projects li[data-project="otherproj"] button');
  await page.keyboard.press('ArrowDown');
  check(await page.evaluate(() => document.activeElement.closest('li').dataset.project) === project, 'arrows move through the projects');
  await page.screenshot({ path: join(shots, 'projects.png') });
  await page.click('#projects li[data-project="otherproj"] button');
  await page.waitForSelector('#list li >> text=Other project memory');
  check(await page.inputValue('#project') === 'otherproj', 'choosing a project opens it');
  await page.goto(url + '#projects');
  await page.click('#projects li[data-project="' + project + '"] button');
  await page.waitForSelector('#list li >> text=Zebra quartz convention, edited');

  // A narrow window: one column, nothing wider than the screen.
  await page.setViewportSize({ width: 390, height: 800 });
  await page.goto(url + '#memories');
  await page.waitForSelector('#list li');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(overflow <= 0, 'a narrow window scrolls no sideways (' + overflow + ' px)');
  await page.screenshot({ path: join(shots, 'narrow.png'), fullPage: true });
  for (const view of ['housekeeping', 'projects']) {
    await page.goto(url + '#' + view);
    await page.waitForSelector(view === 'projects' ? '#projects li[data-project]' : '#h-weeks .week');
    const over = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    check(over <= 0, 'a narrow window scrolls no sideways in ' + view + ' (' + over + ' px)');
    await page.screenshot({ path: join(shots, 'narrow-' + view + '.png'), fullPage: true });
  }
} finally {
  await browser.close();
}
if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log('screenshots in ' + shots);
