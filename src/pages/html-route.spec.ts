import type { Request, Response } from 'express';
import { htmlRouting } from './html-route';

/** Runs the middleware on a request for `url` with `params` and answers where it was sent and the `f` it ends with. */
function route(contextPath: string, url: string, params: Record<string, string> = {}, method = 'GET') {
  const req = { method, url, arcParams: { ...params } } as unknown as Request & { arcParams: Record<string, string> };
  let called = 0;
  htmlRouting(contextPath)(req, {} as Response, () => called++);
  expect(called).toBe(1);
  return { url: req.url, f: req.arcParams.f };
}

describe('htmlRouting: the /home pages', () => {
  it('serves /home/<name>.html as a page whatever f says, keeping the query', () => {
    expect(route('', '/home/group.html?id=abc&tab=members')).toEqual({
      url: '/sharing/rest/html/home/group?id=abc&tab=members',
      f: 'html',
    });
    expect(route('/portal', '/portal/home/webhooks.html', { f: 'json' })).toEqual({
      url: '/portal/sharing/rest/html/home/webhooks',
      f: 'html',
    });
  });

  it('leaves other paths as they are', () => {
    for (const url of ['/home/Group.html', '/home/a/b.html', '/home/group.htm', '/x/home/group.html', '/portal/home/../group.html']) {
      expect(route('/portal', url)).toEqual({ url, f: undefined });
    }
    expect(route('/portal', '/home/group.html')).toEqual({ url: '/home/group.html', f: undefined });
    // Pages are read; a POST to one is an unknown URL like any other.
    expect(route('', '/home/group.html', {}, 'POST')).toEqual({ url: '/home/group.html', f: undefined });
  });

  it('still routes f=html on the resources that have pages', () => {
    expect(route('', '/sharing/rest/community/groups/g1', { f: 'html' }).url).toBe('/sharing/rest/html/groups/g1');
  });
});
