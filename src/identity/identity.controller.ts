import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Caller } from '../core/auth/caller';
import { APP_CONFIG } from '../core/config/config.module';
import { AppConfig } from '../core/config/env';
import { Errors } from '../core/errors/arcgis-error';
import { ArcgisRequest, publicRoot } from '../core/http/arcgis-request';
import { CurrentCaller, Operation, OptionalCaller, Public } from '../core/http/decorators';
import { UsernamePipe } from '../core/http/id-params';
import { Params } from '../core/http/params.decorator';
import {
  CreateRoleDto,
  CreateUserDto,
  GenerateTokenDto,
  PortalSettingsUpdateDto,
  RevokeTokenDto,
  SetPrivilegesDto,
  UpdateUserRoleDto,
} from './identity.dto';
import { readToken } from './auth.guard';
import { IdentityService } from './identity.service';
import { SignInThrottled } from './signin-throttle';
import { originOf } from './token-binding';
import { TokenService } from './token.service';

@Controller('sharing/rest')
export class IdentityController {
  constructor(
    private readonly identity: IdentityService,
    private readonly tokens: TokenService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * A throttled attempt is refused like any failed sign-in: HTTP 200 with the 400 "Unable to generate token."
   * envelope, because ArcGIS clients read only the envelope (on another status arcgis-rest-js drops the code and
   * message), plus a Retry-After header for scripts that look for one.
   */
  @Public()
  @Post('generateToken')
  async generateToken(@Params(GenerateTokenDto) p: GenerateTokenDto, @Req() req: ArcgisRequest, @Res({ passthrough: true }) res: Response) {
    try {
      return await this.tokens.generate(p, originOf(req), publicRoot(req, this.config).startsWith('https:'), readToken(req));
    } catch (e) {
      if (e instanceof SignInThrottled) res.setHeader('Retry-After', String(e.retryAfterS));
      throw e;
    }
  }

  /** Passwords must not travel in URLs, which end up in logs and proxies. */
  @Public()
  @Get('generateToken')
  generateTokenGet() {
    throw Errors.badRequest('Unable to generate token.', ['generateToken requires POST.']);
  }

  @Post('oauth2/revokeToken')
  revokeToken(@CurrentCaller() caller: Caller, @Params(RevokeTokenDto) p: RevokeTokenDto) {
    return this.tokens.revoke(caller, p.auth_token);
  }

  @Operation('community/self')
  self(@CurrentCaller() caller: Caller) {
    return this.identity.self(caller);
  }

  @Public()
  @Operation('community/users/:username')
  user(@OptionalCaller() caller: Caller | undefined, @Param('username', UsernamePipe) username: string) {
    return this.identity.user(caller, username);
  }

  @Public()
  @Operation('portals/self')
  portalSelf(@OptionalCaller() caller: Caller | undefined, @Req() req: ArcgisRequest) {
    return this.identity.portalSelf(caller, publicRoot(req, this.config));
  }

  @Public()
  @Operation('portals/:portalId')
  portal(@OptionalCaller() caller: Caller | undefined, @Param('portalId') portalId: string, @Req() req: ArcgisRequest) {
    return this.identity.portal(caller, portalId, publicRoot(req, this.config));
  }

  @Public()
  @Operation('portals/:portalId/settings')
  settings(@OptionalCaller() caller: Caller | undefined, @Param('portalId') portalId: string) {
    return this.identity.settings(caller, portalId);
  }

  @Operation('portals/:portalId/subscriptionInfo')
  subscriptionInfo(@CurrentCaller() caller: Caller, @Param('portalId') portalId: string) {
    return this.identity.subscriptionInfo(caller, portalId);
  }

  @Post('portals/:portalId/settings/update')
  updateSettings(
    @CurrentCaller() caller: Caller,
    @Param('portalId') portalId: string,
    @Params(PortalSettingsUpdateDto) p: PortalSettingsUpdateDto,
  ) {
    return this.identity.updateSettings(caller, portalId, p);
  }

  @Post('portals/self/createRole')
  createRole(@CurrentCaller() caller: Caller, @Params(CreateRoleDto) p: CreateRoleDto) {
    return this.identity.createRole(caller, p);
  }

  @Post('portals/self/roles/:roleId/setPrivileges')
  setPrivileges(@CurrentCaller() caller: Caller, @Param('roleId') roleId: string, @Params(SetPrivilegesDto) p: SetPrivilegesDto) {
    return this.identity.setPrivileges(caller, roleId, p.privileges);
  }

  @Post('portals/self/updateUserRole')
  updateUserRole(@CurrentCaller() caller: Caller, @Params(UpdateUserRoleDto) p: UpdateUserRoleDto) {
    return this.identity.updateUserRole(caller, p);
  }
}

/** ArcGIS Enterprise's administrative API, where user creation lives. */
@Controller('portaladmin/security/users')
export class PortalAdminController {
  constructor(private readonly identity: IdentityService) {}

  @Post('createUser')
  createUser(@CurrentCaller() caller: Caller, @Params(CreateUserDto) p: CreateUserDto) {
    return this.identity.createUser(caller, p);
  }
}
